-- Deprecation watch for the plugin's tests: records every vim.deprecate call (Neovim's own
-- and plugins', printed or not yet: a soft deprecation is next release's warning) with
-- where it came from, and every :messages line that mentions a deprecation. Load it
-- before the plugin: dofile(here .. "/test/deprecations.lua").
local M = { calls = {} }

local original = vim.deprecate
if original then
  vim.deprecate = function(name, alternative, version, plugin, ...)
    table.insert(M.calls, string.format("%s is deprecated (use %s; removed in %s %s)%s",
      tostring(name), tostring(alternative), plugin or "Nvim", tostring(version), debug.traceback("", 2)))
    return original(name, alternative, version, plugin, ...)
  end
end

-- problems returns the deprecations seen so far, one string each.
function M.problems()
  local found = vim.deepcopy(M.calls)
  for line in vim.fn.execute("messages"):gmatch("[^\n]+") do
    if line:lower():find("deprecat", 1, true) then
      table.insert(found, ":messages: " .. line)
    end
  end
  return found
end

return M
