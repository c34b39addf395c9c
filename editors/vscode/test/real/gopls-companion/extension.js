// Test-only stand-in for the Go extension's language client (the Go extension cannot be
// installed where CI runs: no marketplace, and its source is not on the module proxy). It
// starts gopls ($GOPLS) for Go files with gopls's own "run test" code lenses on, so the real
// VS Code test sees two servers on one test file, as a user with the Go extension does.
// Like the Go extension, it never reveals gopls's failed requests as notifications: gopls
// answers a request VS Code cancelled with a plain error ("getting file for InlayHint: context
// canceled", code 0), which the default client options would pop up as an error.
'use strict';
const { LanguageClient, RevealOutputChannelOn } = require('vscode-languageclient/node');

let client;

exports.activate = async function activate() {
  client = new LanguageClient(
    'gopls',
    'gopls',
    { command: process.env.GOPLS || 'gopls', args: ['-mode=stdio'] },
    {
      documentSelector: [{ scheme: 'file', language: 'go' }],
      initializationOptions: { codelenses: { test: true } },
      revealOutputChannelOn: RevealOutputChannelOn.Never,
    },
  );
  await client.start();
};

exports.deactivate = async function deactivate() {
  if (client) {
    await client.stop();
  }
};
