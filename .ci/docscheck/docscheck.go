// Package docscheck tests the CI examples of docs/ci.md as a reader would use them: the
// GitHub Actions workflow and the Kubernetes Jobs decode into their real types, their
// shard counts agree, and the shell commands they run, run on a copy of examples/, give
// one merged report of every test and a SARIF file that code scanning accepts.
// It is a module of its own so that the project does not depend on k8s.io/api.
package docscheck
