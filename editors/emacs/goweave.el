;;; goweave.el --- goweave beside gopls in lsp-mode  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "27.1") (lsp-mode "8.0"))
;; Keywords: languages, tools, go

;;; Commentary:

;; Registers `goweave serve' (goweave's language server: concurrency bugs
;; found by fuzzing a package's tests) with lsp-mode as an add-on client for
;; Go buffers, so it runs beside gopls, never instead of it: `M-x lsp' in a
;; Go buffer starts both.
;;
;;   (add-to-list 'load-path "/path/to/goweave/editors/emacs")
;;   (require 'goweave)
;;   (add-hook 'go-mode-hook #'lsp-deferred)      ; or go-ts-mode-hook
;;
;; What shows: goweave's diagnostics (source "goweave", with the other
;; positions of a bug as related information), its code actions on a
;; diagnostic ("Replay this bug", "Show timeline", "Fuzz this test again")
;; and in a test function ("fuzz this test", "fuzz package tests"), its code
;; lenses (`lsp-lens-mode', on by default) and progress in the mode line.
;; The commands `goweave-fuzz-test', `goweave-fuzz-package', `goweave-stop'
;; and `goweave-clear' work without lenses.
;;
;; Why lsp-mode and not eglot: eglot runs one server per buffer, so goweave
;; would replace gopls there.  See editors/emacs/README.md.

;;; Code:

(require 'lsp-mode)
(require 'json)

(defgroup goweave nil
  "Concurrency bugs found by goweave, beside gopls."
  :group 'lsp-mode
  :link '(url-link "https://github.com/goweave/goweave"))

(defcustom goweave-command '("goweave" "serve")
  "Command line that starts goweave's language server over stdio."
  :type '(repeat string))

(defcustom goweave-settings nil
  "goweave's settings (lsp/SETTINGS.md), sent as initializationOptions.
A plist, e.g. (:budgetPerTest \"30s\" :runsPerTest 200 :backgroundFuzzing t).
Settings left out keep their defaults."
  :type 'plist)

(defconst goweave-commands
  '("goweave.fuzz_test" "goweave.fuzz_package" "goweave.stop" "goweave.replay"
    "goweave.clear" "goweave.show_timeline")
  "The commands of `goweave serve' (lsp/COMMANDS.md).")

(defun goweave--workspace ()
  "The goweave workspace of the current buffer, or nil."
  (seq-find (lambda (ws)
              (eq (lsp--client-server-id (lsp--workspace-client ws)) 'goweave))
            (lsp-workspaces)))

(defun goweave-execute (command argument &optional callback)
  "Run goweave's COMMAND with ARGUMENT (a plist) by workspace/executeCommand.
The request goes to goweave alone: gopls would refuse it.  CALLBACK, if
non-nil, gets the result; errors are shown as messages."
  (let ((ws (or (goweave--workspace)
                (user-error "goweave does not run in this buffer (M-x lsp)"))))
    (with-lsp-workspace ws
      (lsp-request-async "workspace/executeCommand"
                         (list :command command :arguments (vector argument))
                         (lambda (result)
                           (goweave--handle-result command result)
                           (when callback (funcall callback result)))
                         :error-handler
                         (lambda (err)
                           (lsp--error "goweave: %s: %s" command
                                       (lsp:json-error-message err)))
                         :mode 'detached))))

(defun goweave--handle-result (command result)
  "Act on RESULT of COMMAND: open a timeline page, report a replay."
  (pcase command
    ("goweave.show_timeline"
     (let ((uri (and result (lsp-get result :uri))))
       (when uri (browse-url uri))))
    ("goweave.replay"
     (when result
       (lsp--info "goweave: replay of %s: %s" (lsp-get result :id)
                  (if (lsp-get result :reproduced)
                      "reproduced"
                    "not reproduced"))))))

(defun goweave--action-handler (action)
  "Run ACTION, a Command from a goweave code lens or code action, on goweave."
  (let ((args (lsp-get action :arguments)))
    (goweave-execute (lsp-get action :command) (and args (aref args 0)))))

(defun goweave--test-at-point ()
  "The name of the test function around point, or nil."
  (save-excursion
    (end-of-line)
    (when (let ((case-fold-search nil)) ; TestX, not Testx
            (re-search-backward "^func \\(Test[^a-z(][^(]*\\|Test\\)(" nil t))
      (match-string-no-properties 1))))

(defun goweave-fuzz-test (test)
  "Fuzz TEST (default: the test function around point) of this package."
  (interactive
   (list (let ((at (goweave--test-at-point)))
           (read-string (if at
                            (format "Fuzz test (default %s): " at)
                          "Fuzz test: ")
                        nil nil at))))
  (goweave-execute "goweave.fuzz_test"
                   (list :uri (lsp--buffer-uri) :test test)))

(defun goweave-fuzz-package ()
  "Fuzz every test of this buffer's package."
  (interactive)
  (goweave-execute "goweave.fuzz_package" (list :uri (lsp--buffer-uri))))

(defun goweave-stop (&optional all)
  "Stop the campaigns of this buffer's package.
With prefix argument ALL, stop every campaign."
  (interactive "P")
  (goweave-execute "goweave.stop"
                   (if all (make-hash-table) (list :uri (lsp--buffer-uri)))))

(defun goweave-clear (&optional all)
  "Forget the findings of this buffer's package.
With prefix argument ALL, forget those of every package."
  (interactive "P")
  (goweave-execute "goweave.clear"
                   (if all (make-hash-table) (list :uri (lsp--buffer-uri)))))

(lsp-register-client
 (make-lsp-client
  :new-connection (lsp-stdio-connection (lambda () goweave-command))
  :activation-fn (lsp-activate-on "go")
  ;; An add-on client starts beside the buffer's main client (gopls).
  :add-on? t
  :priority -2
  :server-id 'goweave
  :initialization-options (lambda () goweave-settings)
  ;; goweave leaves timeline pages to a client that says so; Emacs browses them.
  :custom-capabilities '((experimental . ((goweave . ((openTimeline . t))))))
  ;; Commands of goweave's lenses and actions go to goweave only: lsp-mode
  ;; would otherwise send workspace/executeCommand to every server of the
  ;; buffer, gopls included.
  :action-handlers (let ((h (make-hash-table :test #'equal)))
                     (dolist (c goweave-commands h)
                       (puthash c #'goweave--action-handler h)))))

(provide 'goweave)
;;; goweave.el ends here
