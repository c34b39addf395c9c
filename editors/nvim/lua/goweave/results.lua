-- One-line summaries of command results, as echoed by the plugin. Pure Lua (unit-tested).
local M = {}

-- format_replay summarizes a goweave.replay result {id, reproduced, status, panic, blocked}.
function M.format_replay(result)
  if type(result) ~= "table" then
    return "goweave: replay: " .. tostring(result)
  end
  local id = type(result.id) == "string" and (" " .. result.id) or ""
  local parts = {}
  if result.reproduced == true then
    table.insert(parts, "goweave: replay" .. id .. ": reproduced")
  elseif result.reproduced == false then
    table.insert(parts, "goweave: replay" .. id .. ": not reproduced")
  else
    table.insert(parts, "goweave: replay" .. id .. ": " .. vim.inspect(result, { newline = " ", indent = "" }))
  end
  if type(result.status) == "string" and result.status ~= "" then
    table.insert(parts, "status " .. result.status)
  end
  if type(result.panic) == "string" and result.panic ~= "" then
    table.insert(parts, "panic: " .. result.panic)
  end
  if type(result.blocked) == "table" and #result.blocked > 0 then
    table.insert(parts, "blocked: " .. table.concat(result.blocked, "; "))
  end
  return table.concat(parts, ", ")
end

-- format_stop summarizes a goweave.stop result {stopped}.
function M.format_stop(result)
  if type(result) == "table" and type(result.stopped) == "number" then
    return string.format("goweave: stopped %d campaign%s", result.stopped, result.stopped == 1 and "" or "s")
  end
  return "goweave: stopped"
end

return M
