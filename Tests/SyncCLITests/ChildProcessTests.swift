import Foundation
import SyncHarness
import Testing

/// Programs started from a test process with many descriptors open (Foundation's `Process.run()` crashed in CI
/// listing them, which is why `ChildProcess` exists): children inherit none of them, many start at once while
/// descriptors come and go, input reaches them, and a server that cannot start says how it ended.
@Suite(.timeLimit(.minutes(2)))
struct ChildProcessTests {
    /// Descriptors of this process that a child would inherit if nothing closed them (no close-on-exec).
    static func openInheritable(_ count: Int) -> [Int32] {
        (0..<count).map { _ in open("/dev/null", O_RDONLY) }.filter { $0 >= 0 }
    }

    @Test func aChildInheritsNoneOfTheParentsDescriptors() async throws {
        let held = Self.openInheritable(1_200)
        defer { for fd in held { close(fd) } }
        #expect(held.count == 1_200)
        // The child lists its own descriptors: 0, 1 and 2, and the one `ls` opened to read the directory.
        let listed = try await ChildProcess.run("/bin/ls", ["/proc/self/fd"])
        #expect(listed.exit.isClean, "\(listed.stderr)")
        let descriptors = listed.stdout.split(separator: "\n").compactMap { Int32($0) }
        #expect(Set(descriptors).isSuperset(of: [0, 1, 2]) && descriptors.allSatisfy { $0 <= 3 }, "\(descriptors)")
    }

    @Test func manyChildrenStartWhileDescriptorsComeAndGo() async throws {
        let held = Self.openInheritable(1_000)
        defer { for fd in held { close(fd) } }
        let churning = Task.detached {
            while !Task.isCancelled {
                let fds = Self.openInheritable(64)
                for fd in fds { close(fd) }
                await Task.yield()
            }
        }
        defer { churning.cancel() }
        let echoed = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask { try await ChildProcess.run("/bin/echo", ["child \(index)"]).stdout }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(echoed == Set((0..<40).map { "child \($0)\n" }))
    }

    @Test func inputReachesTheChildAndItsStreamsComeBackApart() async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", "tr a-z A-Z; echo oops >&2; exit 3"], input: Array("hello".utf8))
        #expect(result.exit == .exited(3))
        #expect(result.stdout == "HELLO" && result.stderr == "oops\n")
    }

    @Test func aLongRunningChildIsFollowedSignalledAndReaped() async throws {
        let child = try await ChildProcess.start("/bin/sh", ["-c", "echo ready; exec sleep 30"])
        let ready = await child.waitForOutput(timeout: .seconds(10)) { $0.contains("ready") ? true : nil }
        #expect(ready == true)
        #expect(!child.hasEnded)
        child.send(SIGTERM)
        #expect(await child.exit() == .signaled(SIGTERM))
        #expect(child.hasEnded)
        #expect(await child.waitForOutput(timeout: .seconds(1)) { $0.contains("never") ? true : nil } == nil)
    }

    /// The timeout is long: under the whole suite's load on two cores, CI once saw the child not done within 30 s
    /// (the test then reports "no address", not how it ended).
    @Test func aServerThatCannotStartSaysHowItEnded() async throws {
        do {
            _ = try await ServerProcess(executable: ServerProcess.executable(), arguments: ["--dcs", "9"], timeout: 90)
            Issue.record("a server with --dcs 9 started")
        } catch let error as ServerProcessError {
            guard case let .exited(exit, output) = error else { Issue.record("\(error)"); return }
            #expect(!exit.isClean && output.contains("--dcs must be 1…5"), "\(error)")
        }
    }

    @Test func aProgramThatDoesNotExistIsAnError() async {
        await #expect(throws: (any Error).self) { try await ChildProcess.run("/nonexistent/program", []) }
        await #expect(throws: (any Error).self) { try await ChildProcess.start("/nonexistent/program", []) }
    }
}
