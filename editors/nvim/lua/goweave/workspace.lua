-- Where a Go buffer's server runs: the module root (nearest go.mod) and the goweave binary.
-- The file system is reached through injectable functions so that this is unit-tested.
local uv = require("goweave.compat").uv

local M = {}

local function is_file(path)
  local stat = uv.fs_stat(path)
  return stat ~= nil and stat.type == "file"
end

local function parent(dir)
  local p = dir:match("^(.*)/[^/]+/?$")
  if p == "" then
    return "/"
  end
  return p
end

-- find_root returns the nearest directory at or above the directory of path that holds a
-- go.mod, or nil. exists(file) defaults to a file-system check. (Neovim 0.7 has no vim.fs.)
function M.find_root(path, exists)
  exists = exists or is_file
  if not path or path == "" then
    return nil
  end
  local dir = exists(path) and parent(path) or path
  while dir and dir ~= "" do
    if exists(dir .. "/go.mod") then
      return dir
    end
    if dir == "/" then
      return nil
    end
    local up = parent(dir)
    if not up or up == dir then
      return nil
    end
    dir = up
  end
  return nil
end

M.install_hint = "install it with `go install github.com/goweave/goweave/cmd/goweave@latest` "
  .. "(or `go install ./cmd/goweave` in a goweave checkout), or pass cmd = {'/path/to/goweave', 'serve'} to setup()"

-- find_binary looks for goweave on PATH, then where `go install` puts it: $GOBIN, each
-- $GOPATH/bin, ~/go/bin. getenv and executable default to the real ones.
function M.find_binary(getenv, executable)
  getenv = getenv or uv.os_getenv
  executable = executable or function(p) return vim.fn.executable(p) == 1 end
  if executable("goweave") then
    local on_path = vim.fn.exepath and vim.fn.exepath("goweave") or ""
    return on_path ~= "" and on_path or "goweave"
  end
  local dirs = {}
  local gobin = getenv("GOBIN")
  if gobin and gobin ~= "" then
    table.insert(dirs, gobin)
  end
  for dir in (getenv("GOPATH") or ""):gmatch("[^:]+") do
    table.insert(dirs, dir .. "/bin")
  end
  local home = getenv("HOME")
  if home and home ~= "" then
    table.insert(dirs, home .. "/go/bin")
  end
  for _, dir in ipairs(dirs) do
    local p = dir .. "/goweave"
    if executable(p) then
      return p
    end
  end
  return nil, "goweave: the goweave binary was not found on PATH, in $GOBIN, $GOPATH/bin or ~/go/bin; " .. M.install_hint
end

-- A test as go test sees it: TestXxx with Xxx not starting with a lower-case letter,
-- taking one *testing.T.
local function test_name(line)
  local name = line:match("^func%s+(Test[%w_]*)%s*%(%s*[%w_]+%s+%*testing%.T%s*%)")
  if not name then
    return nil
  end
  local after = name:sub(5, 5)
  if after ~= "" and after:match("%l") then
    return nil
  end
  return name
end

-- test_at_line returns the name of the test whose func is the nearest func declaration at
-- or above lnum (1-based) in lines, or nil if that func is not a test.
function M.test_at_line(lines, lnum)
  for i = math.min(lnum, #lines), 1, -1 do
    if lines[i]:match("^func[%s(]") then
      return test_name(lines[i])
    end
  end
  return nil
end

-- finding_at_line picks, among vim.diagnostic items, the goweave diagnostic covering lnum
-- (0-based), else the nearest within slack lines. It returns the diagnostic or nil.
function M.finding_at_line(diagnostics, lnum, slack)
  slack = slack or 0
  local best, best_distance
  for _, d in ipairs(diagnostics) do
    local lsp = d.user_data and d.user_data.lsp or {}
    local id = type(lsp.data) == "table" and lsp.data.id or nil
    if d.source == "goweave" and type(id) == "string" and id ~= "" then
      local last = d.end_lnum or d.lnum
      local distance = 0
      if lnum < d.lnum then
        distance = d.lnum - lnum
      elseif lnum > last then
        distance = lnum - last
      end
      if distance <= slack and (best == nil or distance < best_distance) then
        best, best_distance = d, distance
      end
    end
  end
  return best
end

return M
