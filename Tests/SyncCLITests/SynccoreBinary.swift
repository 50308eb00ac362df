import Foundation
import Testing

/// The `synccore` executable built beside the tests, run as users run it.
enum SynccoreBinary {
    static func run(_ arguments: [String], input: Data? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("synccore")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the synccore executable first")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let (output, errors, stdin) = (Pipe(), Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
