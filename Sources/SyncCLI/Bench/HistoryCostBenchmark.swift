import Foundation
import MTProto
import SyncHarness
import SyncServer
import TL

/// `server.history_page` and `server.history_deep_page`: what one `messages.getHistory` of one message costs the
/// server process (CPU per call, clients included, over a real socket) in a private chat of 20,000 messages of
/// 4,000 characters, from the top and `HistoryPaging.maximumSkip` rows deep; the ratio says whether a page costs
/// what it returns rather than what it skips. A skip past the maximum is refused, and checked to be.
struct HistoryCostBenchmark {
    static let messages = 20_000
    static let calls = 200

    func run() async throws -> [BenchFigure] {
        let directory = try ServerBenchmark.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try SQLiteServerStorage(path: directory + "/server.sqlite")
        try await ServerBenchmark.createUsers(in: storage, count: 2)
        let filler = String(repeating: "x", count: 3_990)
        try await BulkSeeding.privateMessages(in: storage, from: 1, to: 2, count: Self.messages, date: Int32(Date().timeIntervalSince1970),
                                              text: { "\(filler) \($0)" })
        let server = try await ServerBenchmark.startServer(directory: directory)
        let client = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey)
        try await client.login(phone: "19990002")
        let peer = API.InputPeer.inputPeerUser(.init(userId: 1, accessHash: 1))
        func page(skipping skip: Int32) -> API.functions.messages.GetHistory {
            API.functions.messages.GetHistory(peer: peer, offsetId: 0, offsetDate: 0, addOffset: skip, limit: 1, maxId: 0, minId: 0, hash: 0)
        }
        func cost(skipping skip: Int32) async throws -> Double {
            _ = try await client.connection.call(page(skipping: skip))   // warm
            let start = ProcessCPU.seconds()
            for _ in 0..<Self.calls { _ = try await client.connection.call(page(skipping: skip)) }
            return (ProcessCPU.seconds() - start) * 1e6 / Double(Self.calls)
        }
        let top = try await cost(skipping: 0)
        let deep = try await cost(skipping: HistoryPaging.maximumSkip)
        var refused = false
        do { _ = try await client.connection.call(page(skipping: .max)) } catch { refused = "\(error)".contains("OFFSET_INVALID") }
        await client.close()
        try await server.stop()
        guard refused else { throw BenchError.mismatch("a skip past the maximum was not refused") }
        return [
            BenchFigure(bench: "server.history_page", value: top, unit: "µs/call", higherIsBetter: false,
                        note: "getHistory(limit 1) from the top of \(Self.messages) messages of 4,000 characters, CPU of the process"),
            BenchFigure(bench: "server.history_deep_page", value: deep, unit: "µs/call", higherIsBetter: false,
                        note: "the same \(HistoryPaging.maximumSkip) rows deep: \(String(format: "%.2f", deep / top))× the top page; "
                            + "add_offset 2^31-1 refused (OFFSET_INVALID)"),
        ]
    }
}
