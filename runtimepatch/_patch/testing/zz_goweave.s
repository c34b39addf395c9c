// Copyright goweave authors. Added to package testing by the goweave overlay.

// Empty: with an assembly file in the package the compiler accepts the
// bodyless declarations of zz_goweave.go, which the runtime provides (push
// linknames), as it does for sync.
