import Foundation
import Testing

/// `synccore demo --quick` through the built executable, as the README's first command runs it (the full demo runs the
/// same steps with 100,000 messages): every step printed, and the verification against the server's truth passed.
@Suite(.timeLimit(.minutes(5)))
struct DemoCommandTests {
    @Test func theQuickDemoVerifiesBobsStore() async throws {
        let result = try await SynccoreBinary.run(["demo", "--quick"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for step in ["1. Login", "2. Live messages", "3. Bob goes offline", "4. Bob comes back", "5. Bob scrolls", "Summary"] {
            #expect(result.stdout.contains(step), "missing \(step)")
        }
        #expect(result.stdout.contains("followed PHONE_MIGRATE"))
        #expect(result.stdout.contains("channelDifferenceTooLong"))
        #expect(result.stdout.contains("verification        ✓ Bob's store equals the server's truth"))
    }

    /// Bad input: one clear line on stderr and a non-zero exit, never a stack trace.
    @Test func anUnusableDataDirectoryIsOneClearLine() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-demo-file-\(UUID().uuidString)")
        try Data("not a directory".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await SynccoreBinary.run(["demo", "--quick", "--data", file.path])
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("the demo stopped") == true, "\(result.stderr)")
    }
}
