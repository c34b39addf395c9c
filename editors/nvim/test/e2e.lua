-- End to end, headless, against the real `goweave serve`:
--   GOWEAVE_BIN=/path/to/goweave nvim --headless -u NONE -i NONE -n -c 'luafile editors/nvim/test/e2e.lua'
-- Opens the buggy fixture test in a temporary module, attaches through the plugin, runs the
-- "fuzz this test" lens, waits for the send-on-closed diagnostic with its related
-- information, replays it through :GoweaveReplay and stops the server. Fails on any
-- deprecation Neovim reports (test/deprecations.lua). Exits with :cq on any failure.
-- Without GOWEAVE_BIN it builds goweave from the checkout.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*)/test/[^/]*$")
local repo = vim.fn.fnamemodify(here, ":h:h")
vim.opt.runtimepath:prepend(here)
local deprecations = dofile(here .. "/test/deprecations.lua")
local compat = require("goweave.compat")

local function log(msg)
  -- The plugin's progress echoes end without a newline in headless mode.
  io.stdout:write("\n" .. msg)
end

local passed = 0
local function check(cond, what)
  if not cond then
    error(what, 2)
  end
  passed = passed + 1
  log("ok   " .. what)
end

-- wait_for polls f (processing events meanwhile) until it returns a truthy value.
local function wait_for(what, timeout_ms, f)
  local value
  local ok = vim.wait(timeout_ms, function()
    value = f()
    return value ~= nil and value ~= false
  end, 100)
  if not ok then
    error("timed out after " .. timeout_ms .. "ms waiting for " .. what, 2)
  end
  return value
end

local function line_of(lines, marker)
  for i, l in ipairs(lines) do
    if l:find(marker, 1, true) then
      return i - 1 -- 0-based, as LSP and vim.diagnostic count
    end
  end
  error("fixture has no line containing " .. marker)
end

local tmp = vim.fn.tempname()

local function run()
  vim.fn.mkdir(tmp, "p")
  local bin = vim.env.GOWEAVE_BIN
  if not bin or bin == "" then
    bin = tmp .. "/goweave"
    local out = vim.fn.system({ "sh", "-c", "cd " .. vim.fn.shellescape(repo) .. " && go build -o " .. vim.fn.shellescape(bin) .. " ./cmd/goweave" })
    check(vim.v.shell_error == 0, "go build ./cmd/goweave: " .. out)
  end

  -- The temporary module: a copy of editors/testdata/sendafterclose.
  local fixture = repo .. "/editors/testdata/sendafterclose"
  local module = tmp .. "/sendafterclose"
  vim.fn.mkdir(module, "p")
  for _, name in ipairs(vim.fn.readdir(fixture)) do
    vim.fn.writefile(vim.fn.readfile(fixture .. "/" .. name, "b"), module .. "/" .. name, "b")
  end
  local file = module .. "/readings_test.go"
  local lines = vim.fn.readfile(file)
  local want_line = line_of(lines, '// want "send-on-closed"')
  local related_line = line_of(lines, '// related "send-on-closed"')

  local opened = {}
  local goweave = require("goweave")
  goweave.setup({
    cmd = { bin, "serve" },
    settings = { backgroundFuzzing = false, budgetPerTest = "30s", runsPerTest = 60 },
    open_url = function(url)
      table.insert(opened, url)
    end,
  })
  local progress_events = {}
  vim.api.nvim_create_autocmd("User", {
    pattern = "GoweaveProgress",
    callback = function()
      table.insert(progress_events, goweave.status())
    end,
  })

  vim.cmd("filetype on")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  check(vim.bo[buf].filetype == "go", "buffer has filetype go")

  local client = wait_for("the goweave client to attach and initialize", 20000, function()
    for _, c in ipairs(compat.get_clients({ bufnr = buf, name = "goweave" })) do
      if c.initialized then
        return c
      end
    end
  end)
  check(client.config.root_dir == module, "root_dir is the module (go.mod) directory: " .. tostring(client.config.root_dir))
  local commands = client.server_capabilities.executeCommandProvider.commands
  table.sort(commands)
  check(vim.deep_equal(commands, {
    "goweave.clear", "goweave.fuzz_package", "goweave.fuzz_test", "goweave.replay", "goweave.show_timeline", "goweave.stop",
  }), "server advertises the six commands: " .. vim.inspect(commands))

  -- The plugin refreshes lenses on attach: one "fuzz this test" lens per test.
  local test_lenses = wait_for("the test code lenses", 20000, function()
    local found = {}
    for _, l in ipairs(compat.lenses(buf)) do
      if l.command and l.command.command == "goweave.fuzz_test" then
        found[l.command.arguments[1].test] = l
      end
    end
    if found.TestFirstReading and found.TestAverage then
      return found
    end
  end)
  check(vim.tbl_count(test_lenses) == 2, "exactly two test lenses")
  for name, l in pairs(test_lenses) do
    check(l.range.start.line == line_of(lines, "func " .. name .. "("), name .. " lens sits on its func line")
  end

  -- Run the lens on TestFirstReading's line as a user would (vim.lsp.codelens.run).
  vim.api.nvim_win_set_cursor(0, { test_lenses.TestFirstReading.range.start.line + 1, 0 })
  vim.lsp.codelens.run()

  local diag = wait_for("a send-on-closed diagnostic", 180000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.source == "goweave" and d.code == "send-on-closed" then
        return d
      end
    end
  end)
  check(diag.lnum == want_line, string.format("diagnostic on the send (line %d), got line %d: %s", want_line + 1, diag.lnum + 1, diag.message))
  local related = diag.user_data.lsp.relatedInformation or {}
  local points_at_close = false
  for _, r in ipairs(related) do
    if vim.uri_to_fname(r.location.uri) == file and r.location.range.start.line == related_line then
      points_at_close = true
    end
  end
  check(points_at_close, "related information points at the close: " .. vim.inspect(related))
  local id = diag.user_data.lsp.data and diag.user_data.lsp.data.id
  check(type(id) == "string" and id ~= "", "diagnostic carries data.id")

  wait_for("the campaign's progress to end", 120000, function()
    return goweave.status():match("finding") and #progress_events >= 2 and not goweave.status():match("fuzzing")
  end)
  check(progress_events[1]:match("^goweave: fuzzing"), "status while fuzzing: " .. progress_events[1])
  check(goweave.status():match("^goweave: %d+ findings?$"), "status after the campaign: " .. goweave.status())

  -- :GoweaveReplay on the diagnostic's line runs the server's "Replay this bug" action.
  vim.api.nvim_win_set_cursor(0, { want_line + 1, 0 })
  vim.cmd("GoweaveReplay")
  local replay = wait_for("the replay result", 120000, function()
    return goweave.last.replay or goweave.last.error
  end)
  check(goweave.last.replay ~= nil, "goweave.replay succeeded: " .. vim.inspect(goweave.last.error))
  check(replay.id == id, "replayed the finding under the cursor")
  check(replay.reproduced == true, "replay reproduced the bug: " .. vim.inspect(replay))
  wait_for("the confirmed diagnostic", 10000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == "send-on-closed" and d.message:match("confirmed") then
        return d
      end
    end
  end)
  check(true, "diagnostic republished as confirmed")

  -- :GoweaveTimeline runs the "Show timeline" action; the server writes an HTML page and
  -- returns {path, uri}, which the plugin opens (open_url here). A server that predates
  -- the client capability experimental.goweave.openTimeline asks with window/showDocument
  -- instead and says opened = true; either way the page is opened exactly once.
  check(vim.tbl_get(client.config.capabilities, "experimental", "goweave", "openTimeline") == true,
    "the client declares experimental.goweave.openTimeline")
  goweave.last.error = nil
  vim.cmd("GoweaveTimeline")
  local shown = wait_for("the timeline page to be shown", 60000, function()
    return opened[1] or goweave.last.error
  end)
  check(type(shown) == "string", "goweave.show_timeline succeeded: " .. vim.inspect(goweave.last.error))
  local result = wait_for("the show_timeline result", 10000, function()
    return goweave.last.timeline_result
  end)
  check(shown == vim.uri_from_fname(result.path), "the server's page was opened: " .. shown)
  check(#opened == 1, "the page was opened once: " .. vim.inspect(opened))
  if result.uri ~= nil then
    check(result.uri == shown and goweave.last.timeline_via == "result",
      "the server returned the page for the client to open and sent no window/showDocument: " .. vim.inspect(goweave.last))
  else
    check(result.opened == true and goweave.last.timeline_via == "showDocument", "an older server had it opened with window/showDocument")
  end
  local html = table.concat(vim.fn.readfile(result.path), "\n")
  check(html:lower():find("<html", 1, true) ~= nil and html:find("send-on-closed", 1, true) ~= nil,
    "the timeline page is HTML and names the bug kind")

  -- Settings changed at run time reach the server. Counted, not timed: with
  -- runsPerTest = 2 a package campaign (two tests) completes after at most 4 runs, where
  -- the setup's runsPerTest = 60 would allow 120.
  goweave.update_settings({ runsPerTest = 2, budgetPerTest = "10m" })
  goweave.last.progress = nil
  vim.cmd("GoweaveFuzzPackage")
  local limited = wait_for("the package campaign with runsPerTest = 2 to end", 240000, function()
    return goweave.last.progress
  end)
  local runs = tonumber(limited.message:match("completed: (%d+) runs?"))
  check(runs ~= nil and runs >= 1 and runs <= 4, "the new runsPerTest applies: " .. vim.inspect(limited))

  -- With no run limit and a 10-minute budget a package campaign cannot end by itself
  -- while the test runs: :GoweaveStop cancels it.
  goweave.update_settings({ runsPerTest = 0, budgetPerTest = "10m" })
  goweave.last.progress = nil
  vim.cmd("GoweaveFuzzPackage")
  wait_for("the unlimited package campaign to start", 120000, function()
    return goweave.status():match("^goweave: fuzzing")
  end)
  vim.cmd("GoweaveStop")
  local stopped = wait_for("the stop result", 30000, function()
    return goweave.last.stop or goweave.last.error
  end)
  check(type(stopped.stopped) == "number" and stopped.stopped >= 1, ":GoweaveStop stopped the campaign: " .. vim.inspect(stopped))
  local ended = wait_for("the stopped campaign's progress to end", 60000, function()
    return goweave.last.progress
  end)
  check(ended.message:match("cancel") ~= nil, "its progress ended as canceled: " .. vim.inspect(ended))

  -- Quit as Neovim does (shutdown, then exit), but check the shutdown reply ourselves:
  -- vim.lsp.stop_client would hide a server that dies instead of answering.
  local answer
  compat.request(client, "shutdown", nil, function(err)
    answer = { err = err }
  end, buf)
  wait_for("the shutdown reply", 10000, function()
    return answer or goweave.last.exit
  end)
  if answer == nil then
    error("the server exited without answering shutdown: " .. vim.inspect(goweave.last.exit))
  end
  check(answer.err == nil, "server answered shutdown without error " .. (answer.err and vim.inspect(answer.err) or ""))
  compat.notify(client, "exit")
  -- Neovim does not close the server's stdin after exit; the server must end by itself.
  local exit = wait_for("the server to exit after the exit notification", 10000, function()
    return goweave.last.exit
  end)
  check(exit.code == 0 and exit.signal == 0, "server exited cleanly after exit: " .. vim.inspect(exit))

  local problems = deprecations.problems()
  check(#problems == 0, "no deprecation reported: " .. table.concat(problems, "\n"))
end

local ok, err = pcall(run)
vim.fn.delete(tmp, "rf")
if ok then
  log(string.format("nvim e2e: %d checks passed\n", passed))
  vim.cmd("qa!")
else
  log("FAIL " .. tostring(err))
  log(string.format("nvim e2e: %d checks passed, 1 failed\n", passed))
  vim.cmd("cq")
end
