-- The campaign state shown by require("goweave").status() and echoed while fuzzing, derived
-- from the server's $/progress notifications. Pure Lua: no editor calls, so it is unit-tested.
local M = {}

local function plural(n, word)
  return string.format("%d %s%s", n, word, n == 1 and "" or "s")
end

-- parse_counts reads "<n> run(s)" and "<n> finding(s)" from a progress message
-- ("TestX: 40 runs, 1 finding"); absent counts are nil.
function M.parse_counts(message)
  local counts = {}
  if type(message) ~= "string" then
    return counts
  end
  local runs = message:match("(%d+) runs?%f[%W]")
  if runs then
    counts.runs = tonumber(runs)
  end
  local findings = message:match("(%d+) findings?%f[%W]")
  if findings then
    counts.findings = tonumber(findings)
  elseif message:match("no findings") then
    counts.findings = 0
  end
  return counts
end

local Tracker = {}
Tracker.__index = Tracker

function M.new()
  return setmetatable({ campaigns = {}, order = {}, last = nil }, Tracker)
end

-- update applies one $/progress value; values for tokens that never began are ignored.
-- It returns the line to echo for this value, or nil.
function Tracker:update(token, value)
  if type(value) ~= "table" then
    return nil
  end
  local key = tostring(token)
  if value.kind == "begin" then
    self.campaigns[key] = {
      title = value.title or "goweave",
      message = value.message,
      percentage = value.percentage,
      counts = M.parse_counts(value.message),
    }
    table.insert(self.order, key)
    return string.format("goweave: %s%s", value.title or "", value.message and (": " .. value.message) or "")
  end
  local c = self.campaigns[key]
  if not c then
    return nil
  end
  if value.kind == "report" then
    if value.message then
      c.message = value.message
      for k, v in pairs(M.parse_counts(value.message)) do
        c.counts[k] = v
      end
    end
    if value.percentage then
      c.percentage = value.percentage
    end
    return string.format("goweave: %s%s%s", c.title,
      c.percentage and string.format(" %d%%", c.percentage) or "",
      c.message and (": " .. c.message) or "")
  elseif value.kind == "end" then
    self.campaigns[key] = nil
    for i, k in ipairs(self.order) do
      if k == key then
        table.remove(self.order, i)
        break
      end
    end
    local counts = vim.deepcopy(c.counts)
    for k, v in pairs(M.parse_counts(value.message)) do
      counts[k] = v
    end
    self.last = { title = c.title, message = value.message, counts = counts }
    return string.format("goweave: %s: %s", c.title, value.message or "done")
  end
  return nil
end

function Tracker:reset()
  self.campaigns = {}
  self.order = {}
end

function Tracker:running()
  return #self.order
end

-- text is the statusline summary: runs and findings while campaigns run, the last result
-- afterwards, "" before any campaign.
function Tracker:text()
  if #self.order > 0 then
    local runs, findings
    local parts = {}
    for _, key in ipairs(self.order) do
      local c = self.campaigns[key]
      if c.counts.runs then
        runs = (runs or 0) + c.counts.runs
      end
      if c.counts.findings then
        findings = (findings or 0) + c.counts.findings
      end
    end
    if #self.order > 1 then
      table.insert(parts, plural(#self.order, "campaign"))
    elseif self.campaigns[self.order[1]].percentage then
      table.insert(parts, string.format("%d%%", self.campaigns[self.order[1]].percentage))
    end
    if runs then
      table.insert(parts, plural(runs, "run"))
    end
    if findings then
      table.insert(parts, plural(findings, "finding"))
    end
    if #parts == 0 then
      return "goweave: fuzzing"
    end
    return "goweave: fuzzing " .. table.concat(parts, ", ")
  end
  if self.last then
    if self.last.counts.findings then
      return "goweave: " .. plural(self.last.counts.findings, "finding")
    end
    return "goweave: " .. (self.last.message or "done")
  end
  return ""
end

return M
