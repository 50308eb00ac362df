// Tests for the SyncEngine layer arrive with the issue that builds it.
