;;; first_diagnostic.el --- time from opening a test file to goweave's first diagnostic  -*- lexical-binding: t; -*-

;; Benchmark (BENCHMARKS.md), as a user of lsp-mode with goweave beside gopls sees it:
;;   GOWEAVE_BIN=... GOWEAVE_EMACS_LOAD_PATH=dir:dir... GOWEAVE_BENCH_CACHE=cold|warm \
;;     [GOWEAVE_BENCH_MODULE=dir] PATH=<gopls dir>:$PATH emacs --batch -l first_diagnostic.el
;; cold: goweave's and Go's caches start empty (XDG_CACHE_HOME and GOCACHE in a new directory,
;; removed afterwards) and the module is a new copy of editors/testdata/sendafterclose; warm:
;; the caches are the user's and the module is GOWEAVE_BENCH_MODULE (copied there once), so a
;; repeated run is a user opening the same project again.  Prints one line
;; "first diagnostic: N ms (Emacs V, C caches)" and exits 0, or 1 with the reason when no
;; diagnostic came within 10 minutes.

(load (expand-file-name "harness.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun fd-out (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n") #'external-debugging-output))

(defconst fd-cache (or (getenv "GOWEAVE_BENCH_CACHE") "warm"))
(defconst fd-scratch (make-temp-file "goweave-emacs-bench" t))
(unless (member fd-cache '("cold" "warm"))
  (error "GOWEAVE_BENCH_CACHE must be cold or warm"))
(when (equal fd-cache "cold")
  ;; Before lsp-mode starts the servers: they inherit these.
  (setenv "XDG_CACHE_HOME" (expand-file-name "cache" fd-scratch))
  (setenv "GOCACHE" (expand-file-name "cache/go-build" fd-scratch)))

(goweave-test-lsp-setup fd-scratch)

(defun fd-module ()
  (let ((module (if (equal fd-cache "cold")
                    (expand-file-name "sendafterclose" fd-scratch)
                  (or (getenv "GOWEAVE_BENCH_MODULE")
                      (expand-file-name "goweave-bench/sendafterclose-emacs" temporary-file-directory))))
        (fixture (expand-file-name "editors/testdata/sendafterclose" goweave-test-repo)))
    (make-directory module t)
    (dolist (f (directory-files fixture t "\\`[^.]"))
      (let ((to (expand-file-name (file-name-nondirectory f) module)))
        (unless (file-exists-p to) (copy-file f to))))
    module))

(defun fd-goweave-diagnostic-p ()
  "Non-nil once goweave published a diagnostic for any file."
  (seq-some (lambda (ws)
              (and (eq (lsp--client-server-id (lsp--workspace-client ws)) 'goweave)
                   (let (found)
                     (maphash (lambda (_file diags)
                                (when (seq-find (lambda (d) (equal (lsp-get d :source) "goweave")) diags)
                                  (setq found t)))
                              (lsp--workspace-diagnostics ws))
                     found)))
            (lsp--session-workspaces (lsp-session))))

(defun fd-run ()
  (let* ((module (fd-module))
         (file (expand-file-name "readings_test.go" module)))
    (lsp-workspace-folders-add module)
    (let ((start (float-time)) first)
      (with-current-buffer (find-file-noselect file)
        (lsp))
      (let ((deadline (+ start 600)))
        (while (and (not (setq first (and (fd-goweave-diagnostic-p) (float-time))))
                    (< (float-time) deadline))
          (accept-process-output nil 0.02)))
      (unless first (error "no goweave diagnostic within 10 minutes"))
      (fd-out "first diagnostic: %d ms (Emacs %s, %s caches)"
              (round (* 1000 (- first start))) emacs-version fd-cache))))

(let ((status 0))
  (condition-case err
      (fd-run)
    (error (fd-out "FAIL %s" (error-message-string err)) (setq status 1)))
  (ignore-errors (dolist (ws (lsp--session-workspaces (lsp-session))) (lsp-workspace-shutdown ws)))
  (delete-directory fd-scratch t)
  (kill-emacs status))
