import ArgumentParser
import Foundation

/// `tl-gen`: regenerates the Swift code of the project's TL schemas, checks that the committed output is
/// current (`--check`), or verifies the constructor ids of any schema file (`verify FILE`).
@main
struct TLGenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tl-gen",
        abstract: "Generate Swift code from TL schemas.",
        subcommands: [Generate.self, Verify.self, FunctionNames.self],
        defaultSubcommand: Generate.self
    )
}

/// One schema and where its generated code goes, relative to the package root.
struct SchemaJob {
    var schema: String
    var root: String
    var output: String
    var arbitraryOutput: String

    static let all = [
        SchemaJob(schema: "Sources/TL/Schema/api.tl", root: "API", output: "Sources/TL/Generated/API",
                  arbitraryOutput: "Sources/SyncTesting/Generated/API+Arbitrary.swift"),
        SchemaJob(schema: "Sources/TL/Schema/mtproto.tl", root: "MT", output: "Sources/TL/Generated/MTProto",
                  arbitraryOutput: "Sources/SyncTesting/Generated/MT+Arbitrary.swift"),
    ]

    /// Relative path → contents of everything this job generates.
    func render(packageRoot: URL) throws -> [String: String] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(schema), encoding: .utf8)
        let parsed = try TLSchemaParser().parse(text)
        let generator = try SwiftGenerator(schema: parsed, root: root, sourceLabel: schema)
        var outputs: [String: String] = [:]
        for (name, contents) in try generator.files() { outputs[output + "/" + name] = contents }
        outputs[arbitraryOutput] = try ArbitraryGenerator(generator: generator).file()
        return outputs
    }
}

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write (or with --check, compare) the generated code.")

    @Option(help: "Package root.") var packageRoot = "."
    @Flag(help: "Fail if the committed generated code differs from what the schemas generate.") var check = false

    func run() throws {
        let root = URL(fileURLWithPath: packageRoot)
        var stale: [String] = []
        for job in SchemaJob.all {
            let outputs = try job.render(packageRoot: root)
            let directory = root.appendingPathComponent(job.output)
            let existing = Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .map { job.output + "/" + $0 }
            for extra in existing where outputs[extra] == nil {
                if check { stale.append(extra + " (should not exist)") } else {
                    try FileManager.default.removeItem(at: root.appendingPathComponent(extra))
                }
            }
            for (path, contents) in outputs.sorted(by: { $0.key < $1.key }) {
                let url = root.appendingPathComponent(path)
                let current = try? String(contentsOf: url, encoding: .utf8)
                if current == contents { continue }
                if check { stale.append(path); continue }
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try contents.write(to: url, atomically: true, encoding: .utf8)
                print("wrote \(path)")
            }
        }
        if !stale.isEmpty {
            throw ValidationError("generated code is out of date; run `swift run tl-gen`:\n  " + stale.joined(separator: "\n  "))
        }
        if check { print("generated code is current") }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Parse a schema file and check every explicit id against its CRC32.")

    @Argument(help: "A .tl schema file.") var file: String

    func run() throws {
        let schema = try TLSchemaParser().parse(try String(contentsOfFile: file, encoding: .utf8))
        print("\(file): \(schema.constructors.count) constructors, \(schema.functions.count) functions, ids verified")
    }
}

/// Writes the id → name table of every function of a full schema (`API.layerFunctionNames`), so a server built from
/// the project's subset of the schema still names a method it does not model (`METHOD_NOT_SUPPORTED_<NAME>`) instead
/// of calling it an invalid constructor. Run when the layer changes, with the layer's published schema.
struct FunctionNames: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "function-names", abstract: "Write the id → name table of a full schema's functions.")

    @Argument(help: "The layer's full .tl schema (core.telegram.org/schema).") var file: String
    @Option(help: "Where the Swift table goes.") var output = "Sources/TL/Generated/LayerFunctionNames.swift"

    func run() throws {
        let schema = try TLSchemaParser().parse(try String(contentsOfFile: file, encoding: .utf8))
        let layer = schema.layer.map { "layer \($0)" } ?? "its layer"
        var text = """
            // generated by `tl-gen function-names` from the full API schema (\(layer)); do not edit.

            extension API {
                /// Every function of \(layer) by constructor id, including those this package does not model (their
                /// arguments are kept as bytes: `TLOpaqueFunction`).
                public static let layerFunctionNames: [UInt32: String] = [

            """
        for function in schema.functions.sorted(by: { ($0.explicitID ?? $0.computedID) < ($1.explicitID ?? $1.computedID) }) {
            let id = function.explicitID ?? function.computedID
            text += "        0x\(String(id, radix: 16).leftPadded(to: 8)): \"\(function.name)\",\n"
        }
        text += "    ]\n}\n"
        try text.write(toFile: output, atomically: true, encoding: .utf8)
        print("wrote \(output): \(schema.functions.count) functions")
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
