// Tests for the MTProto layer arrive with the issue that builds it.
