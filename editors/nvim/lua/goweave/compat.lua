-- The Neovim APIs that changed between 0.7 and today, each behind one function that checks
-- which form this Neovim has (never its version number), so that the plugin calls the
-- current API where it exists and never one that prints a deprecation warning.
local M = {}

-- uv is libuv's binding: vim.uv since 0.10, vim.loop before (deprecated since).
M.uv = vim.uv or vim.loop

-- has_method reports whether client's class defines name as a method (0.11+ clients are
-- called client:request(...); 0.10's and earlier are tables of closures, client.request(...)).
local function has_method(client, name)
  local class = getmetatable(client)
  return type(class) == "table" and type(rawget(class, name)) == "function"
end

-- request sends an LSP request through client in the form this Neovim's client takes.
function M.request(client, method, params, handler, bufnr)
  if has_method(client, "request") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

-- notify sends an LSP notification through client.
function M.notify(client, method, params)
  if has_method(client, "notify") then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

-- stop_client asks client's server to shut down (shutdown, then exit).
function M.stop_client(client)
  if has_method(client, "stop") then
    return client:stop()
  end
  return client.stop()
end

-- get_clients returns the LSP clients matching filter ({bufnr = n, name = s}, both
-- optional) as a list: vim.lsp.get_clients (0.10+), else get_active_clients or, for one
-- buffer, buf_get_clients (a map on 0.7), filtered here.
function M.get_clients(filter)
  filter = filter or {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  local all
  if filter.bufnr then
    all = vim.lsp.buf_get_clients(filter.bufnr == 0 and vim.api.nvim_get_current_buf() or filter.bufnr)
  else
    all = vim.lsp.get_active_clients()
  end
  local clients = {}
  for _, c in pairs(all) do
    if filter.name == nil or c.name == filter.name then
      table.insert(clients, c)
    end
  end
  table.sort(clients, function(a, b) return a.id < b.id end)
  return clients
end

-- client_is_stopped reports whether the client with id has stopped (or is gone).
function M.client_is_stopped(id)
  local client = vim.lsp.get_client_by_id(id)
  if not client then
    return true
  end
  if has_method(client, "is_stopped") then
    return client:is_stopped()
  end
  if type(client.is_stopped) == "function" then
    return client.is_stopped()
  end
  return vim.lsp.client_is_stopped(id)
end

-- Code lenses: Neovim 0.12 shows them once enabled per buffer (vim.lsp.codelens.enable)
-- and asks for them again on workspace/codeLens/refresh; before, the client asked with
-- textDocument/codeLens and handed the answer to vim.lsp.codelens.on_codelens (a no-op
-- that warns on 0.12).
M.managed_lenses = vim.lsp.codelens.enable ~= nil

-- enable_lenses makes Neovim show the code lenses of bufnr and asks client for them
-- now (client is attached to bufnr).
function M.enable_lenses(bufnr, client)
  if M.managed_lenses then
    if vim.lsp.codelens.is_enabled({ bufnr = bufnr, client_id = client.id }) then
      M.refresh_lenses(client.id)
    else
      vim.lsp.codelens.enable(true, { bufnr = bufnr })
    end
    return
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  M.request(client, "textDocument/codeLens", params, function(err, result, ctx)
    -- 0.7's handler takes (err, result, ctx); earlier forms are not supported.
    vim.lsp.codelens.on_codelens(err, result, ctx)
  end, bufnr)
end

-- refresh_lenses asks again for the lenses of every buffer whose lenses Neovim manages
-- (0.12+), as the server's workspace/codeLens/refresh would.
function M.refresh_lenses(client_id)
  vim.lsp.handlers["workspace/codeLens/refresh"](nil, nil, { client_id = client_id, method = "workspace/codeLens/refresh" })
end

-- lenses returns the code lenses shown in bufnr as LSP CodeLens items.
function M.lenses(bufnr)
  if not M.managed_lenses then
    return vim.lsp.codelens.get(bufnr)
  end
  local lenses = {}
  for _, item in ipairs(vim.lsp.codelens.get({ bufnr = bufnr })) do
    table.insert(lenses, item.lens)
  end
  return lenses
end

return M
