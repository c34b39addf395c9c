// Test-only stand-in for the Go extension's language client (the Go extension cannot be
// installed where CI runs: no marketplace, and its source is not on the module proxy). It
// starts gopls ($GOPLS) for Go files with gopls's own "run test" code lenses on, so the real
// VS Code test sees two servers on one test file, as a user with the Go extension does.
'use strict';
const { LanguageClient } = require('vscode-languageclient/node');

let client;

exports.activate = async function activate() {
  client = new LanguageClient(
    'gopls',
    'gopls',
    { command: process.env.GOPLS || 'gopls', args: ['-mode=stdio'] },
    {
      documentSelector: [{ scheme: 'file', language: 'go' }],
      initializationOptions: { codelenses: { test: true } },
    },
  );
  await client.start();
};

exports.deactivate = async function deactivate() {
  if (client) {
    await client.stop();
  }
};
