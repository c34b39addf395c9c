;;; harness.el --- the set-up the Emacs tests share  -*- lexical-binding: t; -*-

;; Loaded by e2e.el and first_diagnostic.el: the unpacked Emacs without native compilation,
;; the packages of GOWEAVE_EMACS_LOAD_PATH with their autoloads (as package.el would load
;; them), goweave.el on the load path, and `goweave-test-lsp-setup', lsp-mode configured as
;; both tests run it: gopls and goweave (GOWEAVE_BIN) for Go buffers, nothing asked, nothing
;; saved in the user's files.

(setq native-comp-jit-compilation nil     ; the unpacked Emacs has no compiler beside it
      native-comp-enable-subr-trampolines nil)

(dolist (dir (split-string (or (getenv "GOWEAVE_EMACS_LOAD_PATH") "") ":" t))
  (add-to-list 'load-path dir)
  (dolist (autoloads (directory-files dir t "-autoloads\\.el\\'"))
    (load autoloads nil t)))
(defconst goweave-test-here (file-name-directory (or load-file-name buffer-file-name)))
(defconst goweave-test-repo (expand-file-name "../../.." goweave-test-here))
(add-to-list 'load-path (expand-file-name ".." goweave-test-here))

(defun goweave-test-lsp-setup (tmp)
  "Loads go-mode, lsp-mode and goweave.el and configures lsp-mode, its session file in TMP."
  (require 'go-mode)
  (require 'lsp-mode)
  (require 'lsp-go)
  (require 'goweave)
  (setq lsp-session-file (expand-file-name "lsp-session" tmp)
        lsp-client-packages '(lsp-go)
        lsp-auto-guess-root nil
        lsp-restart 'ignore
        lsp-keep-workspace-alive nil
        lsp-enable-file-watchers nil
        lsp-diagnostics-provider :flymake
        lsp-log-io nil
        lsp-enable-snippet nil
        lsp-completion-provider :none
        ;; gopls as a plain child, not lsp-go's default shared daemon (-remote=auto), which
        ;; would outlive the test.
        lsp-go-gopls-server-args nil
        goweave-command (list (or (getenv "GOWEAVE_BIN") "goweave") "serve")))

(provide 'harness)
