// Tests for the SyncServer layer arrive with the issue that builds it.
