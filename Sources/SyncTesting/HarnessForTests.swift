import Foundation
import Subprocess
import SyncHarness
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// What only tests ask of the harness's types (kept out of the shipped `synccore`, which links the harness).
extension ChildProcess {
    /// Runs `executable` to its end, what it prints going nowhere (to `/dev/null`, not a pipe: a daemon it starts,
    /// as `pg_ctl start` does, would hold a pipe open and the run would never end).
    public static func runDiscardingOutput(_ executable: String, _ arguments: [String]) async throws -> ChildExit {
        let result = try await Subprocess.run(
            .path(FilePath(executable)), arguments: Arguments(arguments), input: .none, output: .discarded, error: .discarded)
        return ChildExit(result.terminationStatus)
    }
}

extension SimulationReport {
    /// The world could not be built (its logins timed out twice, as on a machine starved by other work): nothing about
    /// sync was checked.
    public var worldNotBuilt: Bool { violations.contains { $0.hasPrefix("the world could not be built") } }
}
