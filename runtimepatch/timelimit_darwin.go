package runtimepatch

// TimeLimitSignal is the signal EnvTimeLimit names. macOS has no real-time
// signals (32 in all): SIGINFO (29), which Go programs ignore unless they ask
// for it with os/signal, and which only a terminal's ^T sends, to its
// foreground process group (a test process never is: it has a group of its
// own).
const TimeLimitSignal = 29
