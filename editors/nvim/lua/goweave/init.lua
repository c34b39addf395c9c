-- goweave for Neovim: starts `goweave serve` for Go buffers and adds commands for its
-- campaigns, replays and timelines. Works on Neovim 0.7 (vim.lsp.start_client and
-- buf_attach_client) and uses vim.lsp.start where it exists (0.8+); the other APIs that
-- changed since go through goweave.compat.
--
--   require("goweave").setup({ settings = { budgetPerTest = "30s" } })
--
-- See :help goweave.
local compat = require("goweave.compat")
local config = require("goweave.config")
local progress = require("goweave.progress")
local results = require("goweave.results")
local timeline = require("goweave.timeline")
local workspace = require("goweave.workspace")

local M = {}

local state = {
  opts = nil,
  cmd = nil, -- the server command, nil when no binary was found
  settings = nil,
  clients = {}, -- root -> client id (Neovim 0.7 path)
  tracker = progress.new(),
  warned_missing = false,
}

-- Results of the last commands and the last server exit, for scripts and statuslines:
-- replay = the goweave.replay result, timeline = the URI of the last timeline page (shown or
-- told), timeline_page = {path, uri} of it, timeline_via = "result" or "showDocument" (who
-- asked for it), timeline_opened = whether a browser got it, stop = the goweave.stop
-- result, exit = {code, signal}, error = {command, message} of the last failed command,
-- progress = {title, message} of the last campaign or replay that ended.
M.last = {}

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO)
end

local function echo(line)
  -- One line that fits, so that progress never causes a hit-enter prompt.
  line = (line:gsub("\n.*", ""))
  local width = math.max((vim.v.echospace or vim.o.columns) - 1, 20)
  if #line > width then
    line = line:sub(1, width - 3) .. "..."
  end
  vim.api.nvim_echo({ { line } }, false, {})
end

-- goweave_client returns the goweave client attached to bufnr, or nil.
local function goweave_client(bufnr)
  return compat.get_clients({ bufnr = bufnr, name = "goweave" })[1]
end

local request = compat.request

-- refresh_lenses shows the code lenses of bufnr (any buffer, not only the current one,
-- which is all vim.lsp.codelens.refresh does on 0.7) and asks for them again.
local function refresh_lenses(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local client = goweave_client(bufnr)
  if client then
    compat.enable_lenses(bufnr, client)
  end
end

local function refresh_client_lenses(client_id)
  if compat.managed_lenses then
    compat.refresh_lenses(client_id)
    return
  end
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    local c = goweave_client(bufnr)
    if c and c.id == client_id then
      refresh_lenses(bufnr)
    end
  end
end

local function on_progress(err, result, ctx, cfg)
  local default = vim.lsp.handlers["$/progress"]
  if default then
    -- Keeps client.messages (used by other statusline plugins) up to date.
    pcall(default, err, result, ctx, cfg)
  end
  if type(result) ~= "table" or type(result.value) ~= "table" then
    return
  end
  local line = state.tracker:update(result.token, result.value)
  if line and state.opts.echo_progress then
    echo(line)
  end
  if result.value.kind == "end" and state.tracker.last then
    M.last.progress = { title = state.tracker.last.title, message = state.tracker.last.message }
    -- Lenses show the campaign state while it runs.
    refresh_client_lenses(ctx.client_id)
  end
  vim.cmd("redrawstatus")
  vim.api.nvim_exec_autocmds("User", { pattern = "GoweaveProgress", modeline = false })
end

-- show_timeline shows a timeline page (see goweave.timeline) and remembers it for
-- :GoweaveOpenTimeline; via says who asked: the command's result or window/showDocument.
local function show_timeline(page, via)
  M.last.timeline = page.uri
  M.last.timeline_page = page
  M.last.timeline_via = via
  M.last.timeline_opened = timeline.show(page, state.opts.open_url, notify)
  vim.api.nvim_exec_autocmds("User", { pattern = "GoweaveTimeline", modeline = false })
end

local function on_show_document(_, result)
  if type(result) ~= "table" or type(result.uri) ~= "string" then
    return { success = false }
  end
  local is_file = result.uri:match("^file:") ~= nil
  if result.external or not is_file or result.uri:match("%.html?$") then
    -- A server that ignores experimental.goweave.openTimeline still asks; the page
    -- counts as shown once its path was told, so the server does not tell it again.
    show_timeline(timeline.page_of({ uri = result.uri }), "showDocument")
  else
    vim.cmd("edit " .. vim.fn.fnameescape(vim.uri_to_fname(result.uri)))
    if result.selection then
      pcall(vim.api.nvim_win_set_cursor, 0, { result.selection.start.line + 1, result.selection.start.character })
    end
  end
  vim.api.nvim_exec_autocmds("User", { pattern = "GoweaveShowDocument", modeline = false })
  return { success = true }
end

local function on_codelens_refresh(_, _, ctx)
  refresh_client_lenses(ctx.client_id)
  return vim.NIL
end

local function client_config(root)
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  capabilities.window = capabilities.window or {}
  capabilities.window.showDocument = { support = true }
  capabilities.window.workDoneProgress = true
  capabilities.workspace = capabilities.workspace or {}
  capabilities.workspace.codeLens = { refreshSupport = true }
  capabilities.experimental = vim.tbl_deep_extend("force", capabilities.experimental or {}, timeline.capability)
  return {
    name = "goweave",
    cmd = state.cmd,
    root_dir = root,
    init_options = state.settings,
    settings = { goweave = state.settings },
    capabilities = capabilities,
    handlers = {
      ["$/progress"] = on_progress,
      ["window/showDocument"] = on_show_document,
      ["workspace/codeLens/refresh"] = on_codelens_refresh,
    },
    flags = { exit_timeout = 2000 },
    on_attach = function(client, bufnr)
      refresh_lenses(bufnr)
      if state.opts.on_attach then
        state.opts.on_attach(client, bufnr)
      end
    end,
    on_exit = function(code, signal)
      M.last.exit = { code = code, signal = signal }
      state.tracker:reset()
      for r, id in pairs(state.clients) do
        if compat.client_is_stopped(id) then
          state.clients[r] = nil
        end
      end
    end,
  }
end

-- attach starts (or reuses) the server of bufnr's module and attaches it to bufnr. It
-- returns the client id, or nil when the buffer is not a Go file on disk or no binary
-- was found.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not state.opts then
    notify("goweave: call require('goweave').setup() first", vim.log.levels.ERROR)
    return nil
  end
  local path = vim.api.nvim_buf_get_name(bufnr)
  if vim.bo[bufnr].buftype ~= "" or path == "" or path:match("^%a+://") then
    return nil
  end
  if not state.cmd then
    if not state.warned_missing then
      state.warned_missing = true
      notify(state.missing_message, vim.log.levels.ERROR)
    end
    return nil
  end
  path = vim.fn.fnamemodify(path, ":p")
  local root = workspace.find_root(path) or vim.fn.fnamemodify(path, ":h")
  if vim.lsp.start then
    return vim.api.nvim_buf_call(bufnr, function()
      return vim.lsp.start(client_config(root))
    end)
  end
  local id = state.clients[root]
  if not id or compat.client_is_stopped(id) then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      notify("goweave: could not start " .. table.concat(state.cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    state.clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- execute runs a server command with its one argument for bufnr's server; on_result gets
-- the result.
local function execute(bufnr, command, arg, on_result)
  local client = goweave_client(bufnr)
  if not client then
    notify("goweave: the server is not attached to this buffer (is it a Go file in a module?)", vim.log.levels.ERROR)
    return
  end
  request(client, "workspace/executeCommand", { command = command, arguments = { arg } }, function(err, result)
    if err then
      M.last.error = { command = command, message = err.message or vim.inspect(err) }
      notify(string.format("goweave: %s failed: %s", command, M.last.error.message), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, bufnr)
end

-- fuzz_test fuzzes the test named name, or the test around the cursor.
function M.fuzz_test(name)
  local bufnr = vim.api.nvim_get_current_buf()
  if not name or name == "" then
    local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    name = workspace.test_at_line(lines, vim.api.nvim_win_get_cursor(0)[1])
  end
  if not name then
    notify("goweave: the cursor is not inside a func TestXxx(t *testing.T)", vim.log.levels.WARN)
    return
  end
  execute(bufnr, "goweave.fuzz_test", { uri = vim.uri_from_bufnr(bufnr), test = name }, function()
    echo("goweave: fuzzing " .. name)
  end)
end

function M.fuzz_package()
  local bufnr = vim.api.nvim_get_current_buf()
  execute(bufnr, "goweave.fuzz_package", { uri = vim.uri_from_bufnr(bufnr) })
end

function M.stop()
  execute(vim.api.nvim_get_current_buf(), "goweave.stop", vim.empty_dict(), function(result)
    M.last.stop = result
    echo(results.format_stop(result))
  end)
end

function M.clear()
  execute(vim.api.nvim_get_current_buf(), "goweave.clear", vim.empty_dict())
end

-- lsp_diagnostic rebuilds the LSP form of a vim.diagnostic item (0.7 keeps the LSP-only
-- members in user_data.lsp).
local function lsp_diagnostic(d)
  local lsp = d.user_data and d.user_data.lsp or {}
  return {
    range = {
      start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    severity = d.severity,
    message = d.message,
    source = d.source,
    code = d.code or lsp.code,
    codeDescription = lsp.codeDescription,
    relatedInformation = lsp.relatedInformation,
    data = lsp.data,
  }
end

-- with_finding_action asks the server for the code actions of the goweave finding at the
-- cursor and runs the one whose command is command_name.
local function with_finding_action(command_name, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = goweave_client(bufnr)
  if not client then
    notify("goweave: the server is not attached to this buffer", vim.log.levels.ERROR)
    return
  end
  local lnum = vim.api.nvim_win_get_cursor(0)[1] - 1
  local d = workspace.finding_at_line(vim.diagnostic.get(bufnr), lnum, 1)
  if not d then
    notify("goweave: no goweave finding on this line", vim.log.levels.WARN)
    return
  end
  local diag = lsp_diagnostic(d)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = diag.range,
    context = { diagnostics = { diag } },
  }
  request(client, "textDocument/codeAction", params, function(err, actions)
    if err then
      notify("goweave: textDocument/codeAction failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    for _, a in ipairs(actions or {}) do
      local cmd = type(a.command) == "table" and a.command or a
      if cmd.command == command_name then
        execute(bufnr, cmd.command, cmd.arguments and cmd.arguments[1] or vim.empty_dict(), on_result)
        return
      end
    end
    notify(string.format("goweave: the server offered no %s action for this finding", command_name), vim.log.levels.WARN)
  end, bufnr)
end

-- replay replays the finding at the cursor (through its "Replay this bug" code action).
function M.replay()
  echo("goweave: replaying...")
  with_finding_action("goweave.replay", function(result)
    M.last.replay = result
    echo(results.format_replay(result))
    vim.api.nvim_exec_autocmds("User", { pattern = "GoweaveReplay", modeline = false })
  end)
end

-- timeline shows the timeline of the finding at the cursor (through its "Show timeline"
-- code action): the server writes the page and returns {path, uri}, which the plugin
-- shows (a server that predates experimental.goweave.openTimeline asks with
-- window/showDocument instead and says opened = true).
function M.timeline()
  with_finding_action("goweave.show_timeline", function(result)
    M.last.timeline_result = result
    local page = timeline.page_of(result)
    if page and result.opened ~= true then
      show_timeline(page, "result")
    end
  end)
end

-- open_timeline opens the last timeline page in a browser (for when it was only told).
function M.open_timeline()
  if not M.last.timeline_page then
    notify("goweave: no timeline yet; :GoweaveTimeline on the line of a goweave finding makes one", vim.log.levels.WARN)
    return
  end
  M.last.timeline_opened = timeline.open_now(M.last.timeline_page, state.opts.open_url, notify)
end

-- status is a statusline component: campaign state while fuzzing, the last result after.
function M.status()
  return state.tracker:text()
end

-- update_settings changes server settings at run time (workspace/didChangeConfiguration).
function M.update_settings(settings)
  local merged = vim.tbl_extend("force", state.settings or config.server_defaults, settings or {})
  local valid, problems = config.server_settings(merged)
  for _, p in ipairs(problems) do
    notify(p, vim.log.levels.WARN)
  end
  state.settings = valid
  for _, c in ipairs(compat.get_clients({ name = "goweave" })) do
    c.config.settings = { goweave = valid }
    compat.notify(c, "workspace/didChangeConfiguration", { settings = { goweave = valid } })
  end
end

local function create_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("GoweaveFuzzTest", function(o) M.fuzz_test(o.args) end,
    { nargs = "?", desc = "goweave: fuzz the test at the cursor (or the named test)" })
  cmd("GoweaveFuzzPackage", function() M.fuzz_package() end, { desc = "goweave: fuzz the package's tests" })
  cmd("GoweaveStop", function() M.stop() end, { desc = "goweave: stop every campaign" })
  cmd("GoweaveReplay", function() M.replay() end, { desc = "goweave: replay the bug at the cursor" })
  cmd("GoweaveTimeline", function() M.timeline() end, { desc = "goweave: show the timeline of the bug at the cursor" })
  cmd("GoweaveOpenTimeline", function() M.open_timeline() end,
    { desc = "goweave: open the last timeline page in a browser" })
  cmd("GoweaveClear", function() M.clear() end, { desc = "goweave: forget all findings" })
end

-- setup configures the plugin and attaches to Go buffers (open ones and later ones).
function M.setup(opts)
  opts = vim.tbl_extend("force", vim.deepcopy(config.plugin_defaults), opts or {})
  state.opts = opts
  local settings, problems = config.server_settings(opts.settings)
  for _, p in ipairs(problems) do
    notify(p, vim.log.levels.WARN)
  end
  state.settings = settings
  if opts.cmd then
    state.cmd = opts.cmd
  else
    local bin, missing = workspace.find_binary()
    state.cmd = bin and { bin, "serve" } or nil
    state.missing_message = missing
  end

  local group = vim.api.nvim_create_augroup("goweave", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = opts.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = group,
    pattern = "*.go",
    callback = function(args)
      refresh_lenses(args.buf)
    end,
  })
  create_commands()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(opts.filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr)
    end
  end
end

return M
