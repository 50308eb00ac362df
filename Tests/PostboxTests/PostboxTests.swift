// Tests for the Postbox layer arrive with the issue that builds it.
