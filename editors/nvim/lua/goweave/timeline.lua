-- Where a finding's HTML timeline page is shown: the user's open_url, else the browser
-- through vim.ui.open where this Neovim has it (0.10+), else the page's path is told
-- and :GoweaveOpenTimeline opens it with the system's opener. The server writes the
-- page and returns {path, uri}; a client that declares experimental.goweave.openTimeline
-- opens it itself (the server then sends no window/showDocument).
local M = {}

-- capability is what the client declares in initialize's capabilities.experimental.
M.capability = { goweave = { openTimeline = true } }

-- page_of turns a goweave.show_timeline result or a window/showDocument URI into
-- {path, uri}, or nil when it names no page.
function M.page_of(result)
  if type(result) ~= "table" then
    return nil
  end
  local path = type(result.path) == "string" and result.path ~= "" and result.path or nil
  local uri = type(result.uri) == "string" and result.uri ~= "" and result.uri or nil
  if not path and not uri then
    return nil
  end
  if not uri then
    uri = vim.uri_from_fname(path)
  elseif not path and uri:match("^file:") then
    path = vim.uri_to_fname(uri)
  end
  return { path = path, uri = uri }
end

local function where(page)
  return page.path or page.uri
end

-- show opens page with open_url (the user's option) or vim.ui.open, else tells its path.
-- It returns true when the page was handed to a browser, false when only its path was
-- told; tell(msg) is how the user is told (vim.notify by default).
function M.show(page, open_url, tell)
  tell = tell or function(msg) vim.notify(msg, vim.log.levels.INFO) end
  if open_url then
    open_url(page.uri)
    return true
  end
  if vim.ui.open then
    local ok, cmd, err = pcall(vim.ui.open, page.uri)
    if ok and cmd then
      return true
    end
    tell(string.format("goweave: timeline written to %s (no browser could be opened: %s)", where(page),
      tostring(ok and err or cmd)))
    return false
  end
  tell(string.format("goweave: timeline written to %s; :GoweaveOpenTimeline opens it in a browser", where(page)))
  return false
end

-- system_opener returns the command that opens a URL with the desktop's browser, or nil.
-- executable(name) defaults to vim.fn.executable.
function M.system_opener(executable)
  executable = executable or function(name) return vim.fn.executable(name) == 1 end
  local candidates
  if vim.fn.has("mac") == 1 then
    candidates = { "open" }
  elseif vim.fn.has("win32") == 1 then
    candidates = { "explorer" }
  else
    candidates = { "xdg-open", "wslview" }
  end
  for _, name in ipairs(candidates) do
    if executable(name) then
      return name
    end
  end
  return nil
end

-- open_now opens page because the user asked (:GoweaveOpenTimeline): open_url, vim.ui.open,
-- else the system's opener; it tells the path when none works.
function M.open_now(page, open_url, tell)
  tell = tell or function(msg) vim.notify(msg, vim.log.levels.INFO) end
  if open_url or vim.ui.open then
    return M.show(page, open_url, tell)
  end
  local opener = M.system_opener()
  if not opener then
    tell(string.format("goweave: open %s in a browser (no xdg-open, open or explorer found)", where(page)))
    return false
  end
  vim.fn.jobstart({ opener, page.uri }, { detach = true })
  return true
end

return M
