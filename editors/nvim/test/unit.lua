-- Unit tests of the plugin's pure logic (settings, progress, workspace, results).
-- Run: nvim --headless -u NONE -i NONE -n -c 'luafile editors/nvim/test/unit.lua'
local here = debug.getinfo(1, "S").source:sub(2):match("(.*)/test/[^/]*$")
vim.opt.runtimepath:prepend(here)
local deprecations = dofile(here .. "/test/deprecations.lua")

local failures, passed = 0, 0
local function test(name, f)
  local ok, err = pcall(f)
  if ok then
    passed = passed + 1
    io.stdout:write("ok   " .. name .. "\n")
  else
    failures = failures + 1
    io.stdout:write("FAIL " .. name .. ": " .. tostring(err) .. "\n")
  end
end
local function eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(string.format("%s: got %s, want %s", what or "value", vim.inspect(got), vim.inspect(want)), 2)
  end
end

local compat = require("goweave.compat")
local config = require("goweave.config")
local progress = require("goweave.progress")
local workspace = require("goweave.workspace")
local results = require("goweave.results")
local timeline = require("goweave.timeline")

test("server defaults are the server contract", function()
  eq(config.server_defaults, {
    backgroundFuzzing = true, budgetPerTest = "20s", runsPerTest = 100, strategy = "auto",
    parallel = 0, race = true, packages = { "./..." }, maxCampaigns = 1, analysisMemory = 0,
  })
end)

test("server_settings merges valid user values", function()
  local s, problems = config.server_settings({ budgetPerTest = "1m30s", runsPerTest = 0, packages = { "./a/..." }, race = false })
  eq(problems, {})
  eq(s.budgetPerTest, "1m30s")
  eq(s.runsPerTest, 0)
  eq(s.packages, { "./a/..." })
  eq(s.race, false)
  eq(s.strategy, "auto")
  eq(config.server_defaults.packages, { "./..." }, "defaults untouched")
end)

test("server_settings rejects bad values and unknown names", function()
  local s, problems = config.server_settings({
    budgetPerTest = "20 seconds", strategy = "random", maxCampaigns = 0, parallel = -1, packages = {}, budget = "1s",
    analysisMemory = -1,
  })
  eq(s, config.server_defaults)
  eq(#problems, 7)
  assert(table.concat(problems, "\n"):match('budgetPerTest = "20 seconds"'), problems[1])
  assert(table.concat(problems, "\n"):match('unknown goweave setting "budget"'))
end)

test("Go durations", function()
  for _, ok in ipairs({ "20s", "0", "1m30s", "500ms", "1.5h", ".5s", "2h45m0.5s", "10us", "3µs" }) do
    assert(config.is_go_duration(ok), ok)
  end
  for _, bad in ipairs({ "", "20", "s", "1d", "-5s", "20 s", "5sec", "1..2s" }) do
    assert(not config.is_go_duration(bad), bad)
  end
end)

test("progress counts", function()
  eq(progress.parse_counts("40 runs, 1 finding (TestX)"), { runs = 40, findings = 1 })
  eq(progress.parse_counts("completed: 1 run, 3 findings"), { runs = 1, findings = 3 })
  eq(progress.parse_counts("requested"), {})
  eq(progress.parse_counts(nil), {})
end)

test("status follows one campaign", function()
  local t = progress.new()
  eq(t:text(), "")
  eq(t:update("goweave-1", { kind = "begin", title = "fuzzing TestX", message = "requested", cancellable = true }),
    "goweave: fuzzing TestX: requested")
  eq(t:text(), "goweave: fuzzing")
  eq(t:update("goweave-1", { kind = "report", message = "40 runs, 1 finding (TestX)", percentage = 40 }),
    "goweave: fuzzing TestX 40%: 40 runs, 1 finding (TestX)")
  eq(t:text(), "goweave: fuzzing 40%, 40 runs, 1 finding")
  eq(t:running(), 1)
  eq(t:update("goweave-1", { kind = "end", message = "completed: 60 runs, 2 findings" }),
    "goweave: fuzzing TestX: completed: 60 runs, 2 findings")
  eq(t:running(), 0)
  eq(t:text(), "goweave: 2 findings")
end)

test("status sums campaigns and ignores unknown tokens", function()
  local t = progress.new()
  eq(t:update(9, { kind = "report", message = "5 runs" }), nil)
  t:update(1, { kind = "begin", title = "A" })
  t:update(2, { kind = "begin", title = "B" })
  t:update(1, { kind = "report", message = "10 runs, 1 finding" })
  t:update(2, { kind = "report", message = "5 runs, 0 findings" })
  eq(t:text(), "goweave: fuzzing 2 campaigns, 15 runs, 1 finding")
  t:update(2, { kind = "end", message = "canceled" })
  eq(t:text(), "goweave: fuzzing 10 runs, 1 finding")
  t:reset()
  eq(t:running(), 0)
end)

test("find_root walks up to go.mod", function()
  local files = { ["/w/mod/go.mod"] = true, ["/w/mod/pkg/a_test.go"] = true, ["/go.mod"] = false }
  local exists = function(p) return files[p] == true end
  eq(workspace.find_root("/w/mod/pkg/a_test.go", exists), "/w/mod")
  eq(workspace.find_root("/w/mod/pkg/new_test.go", exists), "/w/mod", "unsaved file")
  eq(workspace.find_root("/elsewhere/x.go", exists), nil)
  eq(workspace.find_root("", exists), nil)
end)

test("find_binary: PATH, then GOBIN, GOPATH/bin, ~/go/bin", function()
  local env = { GOBIN = "/gobin", GOPATH = "/gp1:/gp2", HOME = "/home/g" }
  local getenv = function(k) return env[k] end
  local only = function(set) return function(p) return set[p] == true end end
  eq(workspace.find_binary(getenv, only({ ["/gobin/goweave"] = true, ["/gp2/bin/goweave"] = true })), "/gobin/goweave")
  eq(workspace.find_binary(getenv, only({ ["/gp2/bin/goweave"] = true })), "/gp2/bin/goweave")
  eq(workspace.find_binary(getenv, only({ ["/home/g/go/bin/goweave"] = true })), "/home/g/go/bin/goweave")
  local bin, msg = workspace.find_binary(getenv, only({}))
  eq(bin, nil)
  assert(msg:match("go install github.com/goweave/goweave/cmd/goweave@latest"), msg)
end)

test("test_at_line", function()
  local lines = {
    "package p", "", 'import "testing"', "",
    "func TestSend(t *testing.T) {", "\tgo func() {", "\t}()", "}", "",
    "func helper() {}", "",
    "func Testable(t *testing.T) {}",
    "func Test(t *testing.T) {}",
    "func TestBench(b *testing.B) {}",
    "func Test_under(t *testing.T) {",
    "}",
  }
  eq(workspace.test_at_line(lines, 5), "TestSend")
  eq(workspace.test_at_line(lines, 7), "TestSend")
  eq(workspace.test_at_line(lines, 10), nil)
  eq(workspace.test_at_line(lines, 12), nil)
  eq(workspace.test_at_line(lines, 13), "Test")
  eq(workspace.test_at_line(lines, 14), nil)
  eq(workspace.test_at_line(lines, 16), "Test_under")
  eq(workspace.test_at_line(lines, 2), nil)
end)

test("finding_at_line", function()
  local function d(source, lnum, end_lnum, id)
    return { source = source, lnum = lnum, end_lnum = end_lnum, user_data = { lsp = { data = id and { id = id } or nil } } }
  end
  local diags = { d("gopls", 5, 5, "x"), d("goweave", 10, 10, "f10"), d("goweave", 12, 13, "f12"), d("goweave", 20, 20, nil) }
  local id = function(x) return x and x.user_data.lsp.data.id end
  eq(id(workspace.finding_at_line(diags, 10)), "f10")
  eq(id(workspace.finding_at_line(diags, 13)), "f12")
  eq(workspace.finding_at_line(diags, 5), nil)
  eq(workspace.finding_at_line(diags, 20), nil)
  eq(workspace.finding_at_line(diags, 11), nil)
  eq(id(workspace.finding_at_line(diags, 11, 1)), "f10")
end)

test("result summaries", function()
  eq(results.format_replay({ id = "f1", reproduced = true, status = "panic", panic = "send on closed channel" }),
    "goweave: replay f1: reproduced, status panic, panic: send on closed channel")
  eq(results.format_replay({ id = "f2", reproduced = false, status = "pass" }), "goweave: replay f2: not reproduced, status pass")
  eq(results.format_replay({ reproduced = true, blocked = { "a", "b" } }), "goweave: replay: reproduced, blocked: a; b")
  eq(results.format_stop({ stopped = 1 }), "goweave: stopped 1 campaign")
  eq(results.format_stop({ stopped = 2 }), "goweave: stopped 2 campaigns")
end)

test("setup without a binary explains how to install, and creates the commands", function()
  local goweave = require("goweave")
  local saved = vim.env.PATH
  vim.env.PATH = "/nonexistent"
  local saved_home, saved_gopath, saved_gobin = vim.env.HOME, vim.env.GOPATH, vim.env.GOBIN
  vim.env.HOME, vim.env.GOPATH, vim.env.GOBIN = "/nonexistent", "/nonexistent", "/nonexistent"
  local told = {}
  local saved_notify = vim.notify
  vim.notify = function(msg) table.insert(told, msg) end
  goweave.setup({})
  local buf = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(buf, vim.fn.tempname() .. "_test.go")
  eq(goweave.attach(buf), nil)
  vim.notify = saved_notify
  vim.env.PATH, vim.env.HOME, vim.env.GOPATH, vim.env.GOBIN = saved, saved_home, saved_gopath, saved_gobin
  assert(#told == 1 and told[1]:match("go install"), vim.inspect(told))
  for _, c in ipairs({ "GoweaveFuzzTest", "GoweaveFuzzPackage", "GoweaveStop", "GoweaveReplay", "GoweaveTimeline", "GoweaveOpenTimeline" }) do
    eq(vim.fn.exists(":" .. c), 2, c)
  end
end)

test("update_settings validates, merges and notifies running goweave clients", function()
  local goweave = require("goweave")
  goweave.setup({ cmd = { "goweave-not-started", "serve" }, settings = { budgetPerTest = "5s" } })
  local sent = {}
  local fake = { name = "goweave", config = {} }
  fake.notify = function(method, params) table.insert(sent, { method = method, params = params }) end
  local other = { name = "gopls", config = {}, notify = function() error("gopls must not be told") end }
  -- The client list comes from vim.lsp.get_clients where this Neovim has it (0.10+),
  -- else from vim.lsp.get_active_clients (deprecated since 0.10).
  local lister = vim.lsp.get_clients and "get_clients" or "get_active_clients"
  local saved_get, saved_notify = vim.lsp[lister], vim.notify
  vim.lsp[lister] = function(filter)
    return vim.tbl_filter(function(c) return filter == nil or filter.name == nil or c.name == filter.name end, { fake, other })
  end
  local told = {}
  vim.notify = function(msg) table.insert(told, msg) end
  local ok, err = pcall(goweave.update_settings, { runsPerTest = 7, strategy = "nonsense" })
  vim.lsp[lister], vim.notify = saved_get, saved_notify
  assert(ok, err)
  eq(#sent, 1)
  eq(sent[1].method, "workspace/didChangeConfiguration")
  local g = sent[1].params.settings.goweave
  eq(g.runsPerTest, 7, "new value")
  eq(g.budgetPerTest, "5s", "kept from setup")
  eq(g.strategy, "auto", "invalid value replaced by the default")
  eq(fake.config.settings, { goweave = g }, "answers later workspace/configuration pulls")
  assert(#told == 1 and told[1]:match("strategy"), vim.inspect(told))
end)

-- fake_client returns a client of the form the given Neovim has: "method" (0.11+: a class
-- whose methods take self, so client:request) or "closure" (0.10 and earlier: fields that
-- are closures, client.request). Each records its calls in sent and errors on the other
-- calling form, as the real one would misbehave.
local function fake_client(form, sent)
  local function record(kind, method, params)
    table.insert(sent, { kind = kind, method = method, params = params })
    return true, 1
  end
  if form == "closure" then
    return {
      name = "goweave",
      request = function(method, params, handler, bufnr)
        assert(type(method) == "string", "client.request called as a method")
        return record("request", method, { params = params, has_handler = handler ~= nil, bufnr = bufnr })
      end,
      notify = function(method, params)
        assert(type(method) == "string", "client.notify called as a method")
        return record("notify", method, params)
      end,
      stop = function(force)
        assert(force == nil or type(force) == "boolean", "client.stop called as a method")
        return record("stop")
      end,
    }
  end
  local Client = {}
  Client.__index = Client
  function Client:request(method, params, handler, bufnr)
    assert(getmetatable(self) == Client, "client:request called without self")
    return record("request", method, { params = params, has_handler = handler ~= nil, bufnr = bufnr })
  end
  function Client:notify(method, params)
    assert(getmetatable(self) == Client, "client:notify called without self")
    return record("notify", method, params)
  end
  function Client:stop(force)
    assert(getmetatable(self) == Client and (force == nil or type(force) == "boolean"), "client:stop called without self")
    return record("stop")
  end
  return setmetatable({ name = "goweave" }, Client)
end

test("compat.request and notify call both client forms as they are meant to be called", function()
  for _, form in ipairs({ "closure", "method" }) do
    local sent = {}
    local c = fake_client(form, sent)
    eq({ compat.request(c, "shutdown", { x = 1 }, function() end, 3) }, { true, 1 }, form .. " request result")
    compat.notify(c, "exit", nil)
    compat.stop_client(c)
    eq(sent, {
      { kind = "request", method = "shutdown", params = { params = { x = 1 }, has_handler = true, bufnr = 3 } },
      { kind = "notify", method = "exit" },
      { kind = "stop" },
    }, form)
  end
end)

test("compat.get_clients filters by name on every Neovim", function()
  local a, b = { id = 2, name = "goweave" }, { id = 1, name = "gopls" }
  local lister = vim.lsp.get_clients and "get_clients" or "get_active_clients"
  local saved = vim.lsp[lister]
  vim.lsp[lister] = function(filter)
    return vim.tbl_filter(function(c) return filter == nil or filter.name == nil or c.name == filter.name end, { a, b })
  end
  local ok, got = pcall(compat.get_clients, { name = "goweave" })
  vim.lsp[lister] = saved
  assert(ok, got)
  eq(got, { a })
end)

test("compat.uv is libuv's binding", function()
  eq(type(compat.uv.fs_stat), "function")
  eq(compat.uv.fs_stat(here .. "/lua/goweave/compat.lua").type, "file")
end)

test("help file: tags build and every command is documented", function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  vim.fn.writefile(vim.fn.readfile(here .. "/doc/goweave.txt"), dir .. "/goweave.txt")
  vim.cmd("helptags " .. vim.fn.fnameescape(dir)) -- errors (duplicate tags) raise
  local tags = table.concat(vim.fn.readfile(dir .. "/tags"), "\n")
  vim.fn.delete(dir, "rf")
  for _, c in ipairs({ "GoweaveFuzzTest", "GoweaveFuzzPackage", "GoweaveStop", "GoweaveReplay", "GoweaveTimeline", "GoweaveOpenTimeline", "GoweaveClear" }) do
    assert(tags:find(":" .. c .. "\t", 1, true), c .. " has no help tag")
  end
  for name in pairs(config.server_defaults) do
    assert(table.concat(vim.fn.readfile(here .. "/doc/goweave.txt"), "\n"):find("  " .. name .. " ", 1, true), name .. " is not documented")
  end
end)

test("timeline.page_of: the server's {path, uri}, either alone, or nothing", function()
  eq(timeline.page_of({ path = "/c/t/f1.html", uri = "file:///c/t/f1.html" }), { path = "/c/t/f1.html", uri = "file:///c/t/f1.html" })
  eq(timeline.page_of({ path = "/c/t/f1.html", opened = false }), { path = "/c/t/f1.html", uri = "file:///c/t/f1.html" })
  eq(timeline.page_of({ uri = "file:///c/t/f1.html" }), { path = "/c/t/f1.html", uri = "file:///c/t/f1.html" })
  eq(timeline.page_of({ uri = "https://example.test/t" }), { uri = "https://example.test/t" })
  eq(timeline.page_of({ path = "" }), nil)
  eq(timeline.page_of(vim.NIL), nil)
  eq(timeline.page_of(nil), nil)
end)

-- with_ui_open runs f with vim.ui.open replaced by open (nil: a Neovim without it).
local function with_ui_open(open, f)
  local saved = vim.ui.open
  vim.ui.open = open
  local ok, err = pcall(f)
  vim.ui.open = saved
  assert(ok, err)
end

test("timeline.show: open_url, else vim.ui.open, else the path and :GoweaveOpenTimeline", function()
  local page = { path = "/c/t/f1.html", uri = "file:///c/t/f1.html" }
  local told, opened = {}, {}
  local tell = function(msg) table.insert(told, msg) end
  with_ui_open(function() error("vim.ui.open must not be used when open_url is set") end, function()
    eq(timeline.show(page, function(url) table.insert(opened, url) end, tell), true)
  end)
  eq(opened, { page.uri }, "open_url got the URI")

  opened = {}
  with_ui_open(function(url) table.insert(opened, url); return {} end, function()
    eq(timeline.show(page, nil, tell), true)
  end)
  eq(opened, { page.uri }, "vim.ui.open got the URI")
  eq(told, {}, "nothing told when a browser got it")

  with_ui_open(function() return nil, "vim.ui.open: no handler found" end, function()
    eq(timeline.show(page, nil, tell), false)
  end)
  eq(#told, 1)
  assert(told[1]:find("/c/t/f1.html", 1, true) and told[1]:find("no handler found", 1, true), told[1])

  with_ui_open(nil, function()
    eq(timeline.show(page, nil, tell), false)
  end)
  eq(#told, 2)
  assert(told[2]:find("/c/t/f1.html", 1, true) and told[2]:find(":GoweaveOpenTimeline", 1, true), told[2])
end)

test("timeline.open_now: the system opener where vim.ui.open is missing, else the path", function()
  local page = { path = "/c/t/f1.html", uri = "file:///c/t/f1.html" }
  eq(timeline.system_opener(function(name) return name == "wslview" end), vim.fn.has("mac") == 1 and nil or "wslview")
  eq(timeline.system_opener(function() return false end), nil)
  local told = {}
  local saved_exe = vim.fn.executable
  with_ui_open(nil, function()
    vim.fn.executable = function() return 0 end
    local ok, got = pcall(timeline.open_now, page, nil, function(msg) table.insert(told, msg) end)
    vim.fn.executable = saved_exe
    assert(ok, got)
    eq(got, false)
  end)
  assert(#told == 1 and told[1]:find("/c/t/f1.html", 1, true), vim.inspect(told))
end)

test("the client declares experimental.goweave.openTimeline", function()
  eq(timeline.capability, { goweave = { openTimeline = true } })
end)

-- Last: no test may have made Neovim (or the plugin) report a deprecation.
test("no deprecation reported", function()
  local problems = deprecations.problems()
  if #problems > 0 then
    error(#problems .. " deprecation(s):\n" .. table.concat(problems, "\n"))
  end
end)

io.stdout:write(string.format("nvim unit: %d passed, %d failed\n", passed, failures))
if failures > 0 then
  vim.cmd("cq")
else
  vim.cmd("qa!")
end
