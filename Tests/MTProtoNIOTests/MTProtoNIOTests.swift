// Tests for the MTProtoNIO layer arrive with the issue that builds it.
