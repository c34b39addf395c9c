-- Options of the goweave plugin and the settings of `goweave serve`: names, defaults and
-- validation in one place. The server settings are sent as initializationOptions and, when
-- changed with require("goweave").update_settings(), as workspace/didChangeConfiguration
-- {settings = {goweave = ...}}.
local M = {}

-- The settings `goweave serve` understands, with its defaults. The names are the server's.
M.server_defaults = {
  backgroundFuzzing = true,
  budgetPerTest = "20s",
  runsPerTest = 100,
  strategy = "auto",
  parallel = 0,
  race = true,
  packages = { "./..." },
  maxCampaigns = 1,
  analysisMemory = 0,
}

M.strategies = { "auto", "gfuzz", "gopie", "flow", "prefix", "record" }

-- Go's time.ParseDuration syntax, without a sign: "0" or number+unit pairs.
function M.is_go_duration(s)
  if type(s) ~= "string" or s == "" then
    return false
  end
  if s == "0" then
    return true
  end
  local units = { ns = true, us = true, ms = true, s = true, m = true, h = true }
  local rest = s:gsub("\194\181s", "us"):gsub("\206\188s", "us") -- µs (micro sign), μs (mu)
  while rest ~= "" do
    local num, unit, tail = rest:match("^([%d%.]+)(%a+)(.*)$")
    if not num or not units[unit] or not (num:match("^%d+%.?%d*$") or num:match("^%.%d+$")) then
      return false
    end
    rest = tail
  end
  return true
end

local function non_negative_int(v)
  return type(v) == "number" and v >= 0 and math.floor(v) == v
end

local checks = {
  backgroundFuzzing = { valid = function(v) return type(v) == "boolean" end, expect = "true or false" },
  budgetPerTest = { valid = M.is_go_duration, expect = 'a Go duration such as "20s" or "1m30s"' },
  runsPerTest = { valid = non_negative_int, expect = "an integer >= 0" },
  strategy = {
    valid = function(v) return vim.tbl_contains(M.strategies, v) end,
    expect = "one of " .. table.concat(M.strategies, ", "),
  },
  parallel = { valid = non_negative_int, expect = "an integer >= 0 (0: one per CPU core)" },
  race = { valid = function(v) return type(v) == "boolean" end, expect = "true or false" },
  packages = {
    valid = function(v)
      if type(v) ~= "table" or #v == 0 then
        return false
      end
      for _, p in ipairs(v) do
        if type(p) ~= "string" or vim.trim(p) == "" then
          return false
        end
      end
      return true
    end,
    expect = 'a non-empty list of package patterns such as {"./..."}',
  },
  maxCampaigns = { valid = function(v) return non_negative_int(v) and v >= 1 end, expect = "an integer >= 1" },
  analysisMemory = { valid = non_negative_int, expect = "an integer >= 0 (MB; 0: a quarter of the machine's memory, at most 1 GB)" },
}

-- server_settings merges user over the defaults. Unknown names and invalid values are
-- left out (the default stays) and described in problems, so the server never receives a
-- value it would reject.
function M.server_settings(user)
  local settings = vim.deepcopy(M.server_defaults)
  local problems = {}
  for name, value in pairs(user or {}) do
    local check = checks[name]
    if not check then
      local names = vim.tbl_keys(M.server_defaults)
      table.sort(names)
      table.insert(problems, string.format("unknown goweave setting %q (known: %s)", name, table.concat(names, ", ")))
    elseif not check.valid(value) then
      table.insert(problems, string.format("goweave setting %s = %s, but must be %s; using %s",
        name, vim.inspect(value), check.expect, vim.inspect(M.server_defaults[name])))
    else
      settings[name] = vim.deepcopy(value)
    end
  end
  table.sort(problems)
  return settings, problems
end

-- Plugin options and their defaults (see :help goweave-setup).
M.plugin_defaults = {
  cmd = nil, -- default: { <goweave on PATH or in the go install directories>, "serve" }
  filetypes = { "go" },
  settings = {},
  echo_progress = true,
  open_url = nil, -- default: vim.ui.open where Neovim has it, else the page's path is told (goweave.timeline)
  on_attach = nil,
}

return M
