-- Benchmark: time from opening a test file to its first goweave diagnostic, as a user of
-- the plugin sees it (background fuzzing on, the defaults otherwise), in this Neovim.
--   GOWEAVE_BIN=/path/to/goweave GOWEAVE_BENCH_CACHE=cold|warm [GOWEAVE_BENCH_MODULE=dir] \
--     nvim --headless -u NONE -i NONE -n -c 'luafile editors/nvim/test/first_diagnostic.lua'
-- cold: goweave's and Go's caches start empty (XDG_CACHE_HOME is a new directory, removed
-- afterwards) and the module is a new copy of editors/testdata/sendafterclose; warm: the
-- caches are the user's and the module is GOWEAVE_BENCH_MODULE (copied there once), so
-- that a repeated run is a user opening the same project again.
-- Prints one line "first diagnostic: N ms (Neovim V, C caches)" and exits 0, or 1 with
-- the reason when no diagnostic came within 10 minutes.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*)/test/[^/]*$")
local repo = vim.fn.fnamemodify(here, ":h:h")
vim.opt.runtimepath:prepend(here)
local uv = require("goweave.compat").uv

local function out(line)
  io.stdout:write(line .. "\n")
end

local cache = vim.env.GOWEAVE_BENCH_CACHE or "warm"
local scratch = vim.fn.tempname()
local function copy_fixture(dir)
  local fixture = repo .. "/editors/testdata/sendafterclose"
  vim.fn.mkdir(dir, "p")
  for _, name in ipairs(vim.fn.readdir(fixture)) do
    if vim.fn.filereadable(dir .. "/" .. name) == 0 then
      vim.fn.writefile(vim.fn.readfile(fixture .. "/" .. name, "b"), dir .. "/" .. name, "b")
    end
  end
end

local function run()
  local bin = vim.env.GOWEAVE_BIN
  assert(bin and bin ~= "", "set GOWEAVE_BIN to the goweave binary")
  local module
  if cache == "cold" then
    vim.env.XDG_CACHE_HOME = scratch .. "/cache" -- goweave's state and Go's build cache
    module = scratch .. "/sendafterclose"
  else
    assert(cache == "warm", "GOWEAVE_BENCH_CACHE must be cold or warm")
    module = vim.env.GOWEAVE_BENCH_MODULE or (vim.fn.stdpath("cache") .. "/goweave-bench/sendafterclose")
  end
  copy_fixture(module)

  local version = vim.version and vim.version() or { major = 0, minor = 7, patch = 0 }
  local first, first_message
  local goweave = require("goweave")
  goweave.setup({ cmd = { bin, "serve" }, echo_progress = false })
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    callback = function()
      if first then
        return
      end
      for _, d in ipairs(vim.diagnostic.get()) do
        if d.source == "goweave" then
          first, first_message = uv.hrtime(), d.message
          return
        end
      end
    end,
  })
  vim.cmd("filetype on")
  local start = uv.hrtime()
  vim.cmd("edit " .. vim.fn.fnameescape(module .. "/readings_test.go"))
  if not vim.wait(600000, function() return first ~= nil end, 20) then
    error("no goweave diagnostic within 10 minutes; last progress: " .. vim.inspect(goweave.last))
  end
  out(string.format("first diagnostic: %d ms (Neovim %d.%d.%d, %s caches): %s",
    (first - start) / 1e6, version.major, version.minor, version.patch, cache, first_message:sub(1, 120)))
end

local ok, err = pcall(run)
if not ok then
  out("FAIL " .. tostring(err))
end
-- Stop the server before the scratch directory goes.
for _, c in ipairs(require("goweave.compat").get_clients({ name = "goweave" })) do
  require("goweave.compat").stop_client(c)
end
vim.wait(5000, function() return #require("goweave.compat").get_clients({ name = "goweave" }) == 0 end, 20)
vim.fn.delete(scratch, "rf")
vim.cmd(ok and "qa!" or "cq")
