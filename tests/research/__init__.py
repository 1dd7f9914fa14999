"""The research skill and the `signoff research` command."""
