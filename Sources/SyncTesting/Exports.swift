// Tests that import SyncTesting also get the harness the CLI ships with (servers in-process, the simulation, the
// replay runner, load clients).
@_exported import SyncHarness
