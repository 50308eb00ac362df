import ArgumentParser
import Foundation
import SyncHarness

/// `synccore replay FILE|-`: the update sequencer on a virtual clock (`docs/REPLAY-FORMAT.md`). JSON lines on stdout;
/// a malformed scenario is one line on stderr and exit 2.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run an update-sequencer scenario (JSON) on a virtual clock and print what the engine did as JSON lines.")

    @Argument(help: "The scenario file, or - for standard input.")
    var file: String

    func run() throws {
        let text: String
        if file == "-" {
            // `readToEnd()` throws where `readDataToEndOfFile()` would stop the process (an interrupted read).
            do {
                text = String(decoding: try FileHandle.standardInput.readToEnd() ?? Data(), as: UTF8.self)
            } catch {
                fail("cannot read standard input: \(error)")
            }
        } else {
            guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
            text = String(decoding: data, as: UTF8.self)
        }
        do {
            let lines = try ReplayRunner.run(ReplayScenario(json: text))
            print(lines.joined(separator: "\n"))
        } catch {
            fail("malformed scenario: \(error)")
        }
    }

    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("synccore replay: \(message)\n".utf8))
        Foundation.exit(2)
    }
}
