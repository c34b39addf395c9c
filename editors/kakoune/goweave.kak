# goweave beside gopls in Kakoune with kakoune-lsp (17 or newer: servers are configured in
# kakrc through the lsp_servers option, several per filetype). Source it from kakrc after
# kakoune-lsp is loaded (eval %sh{kak-lsp}); goweave and gopls must be on PATH.
#
# Kakoune shows diagnostics inline (lsp-diagnostics lists them); lsp-code-actions on a test
# function offers "fuzz this test" and "fuzz package tests", on a goweave diagnostic "Replay
# this bug", "Show timeline" and "Fuzz this test again"; lsp-code-lens runs a lens of the
# current line. The commands below run goweave's commands directly (lsp-execute-command
# takes the arguments as a TOML array: kakoune-lsp reads its requests as TOML).

remove-hooks global lsp-filetype-go
hook -group lsp-filetype-go global BufSetOption filetype=go %{
    set-option buffer lsp_servers %{
        [gopls]
        root_globs = ["go.work", "go.mod", ".git", ".hg"]
        [goweave]
        root_globs = ["go.work", "go.mod", ".git", ".hg"]
        command = "goweave"
        args = ["serve"]
        # goweave's settings (lsp/SETTINGS.md), sent as initializationOptions.
        settings_section = "goweave"
        [goweave.settings.goweave]
        budgetPerTest = "20s"
    }
}

define-command goweave-fuzz-package -docstring "goweave: fuzz every test of this buffer's package" %{
    lsp-execute-command goweave.fuzz_package %sh{ printf '[{uri = "file://%s"}]' "$kak_buffile" }
}
define-command goweave-stop -docstring "goweave: stop fuzzing this buffer's package" %{
    lsp-execute-command goweave.stop %sh{ printf '[{uri = "file://%s"}]' "$kak_buffile" }
}
