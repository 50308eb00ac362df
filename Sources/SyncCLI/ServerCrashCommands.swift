import ArgumentParser
import Foundation
import MTProto
import SyncServer
import SyncHarness
import TL

/// `synccore debug server-burst`: 8 clients (Alice, Bob and Carol, several sessions each) send private messages to
/// one another as fast as acknowledgements come back, appending one line per acknowledged send to `--acks`
/// (`user message_id pts`, flushed at once), until the server goes away. Used by Tests/Faults/server_crash.sh.
struct ServerBurst: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "server-burst", abstract: "Send bursts until the server dies.")
    @Option var port: Int
    @Option(help: "The server's data directory (its RSA key).") var data: String
    @Option var acks: String
    @Option var clients = 8

    func run() async throws {
        let key = try RunningServerKey.publicKey(data: data)
        guard FileManager.default.createFile(atPath: acks, contents: nil), let log = FileHandle(forWritingAtPath: acks) else { throw ValidationError("cannot write \(acks)") }
        let users: [(id: Int64, phone: String)] = [(1001, "+15550001"), (1002, "+15550002"), (1003, "+15550003")]
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<clients {
                let (me, phone) = users[index % users.count]
                let (peerID, _) = users[(index + 1) % users.count]
                group.addTask {
                    guard let client = try? await TestClient(port: port, publicKey: key),
                          (try? await client.login(phone: phone)) != nil else { return }
                    // Seeded users' access hashes are fixed by the seed (0x5EED_0000 + index).
                    let peer = API.InputPeer.inputPeerUser(.init(userId: peerID, accessHash: 0x5EED_0000 + peerID - 1001))
                    var sent = 0
                    while true {
                        sent += 1
                        guard case let .updateShortSentMessage(ack)? = try? await client.connection.call(
                            API.functions.messages.SendMessage(peer: peer, message: "burst \(index).\(sent)", randomId: .random(in: 1...Int64.max)))
                        else { return }
                        log.write(Data("\(me) \(ack.id) \(ack.pts)\n".utf8))
                    }
                }
            }
        }
    }
}

/// `synccore debug server-burst-verify`: after a restart, every acknowledged message exists in its sender's box
/// and each seeded user's update log, replayed by getDifference from pts 0, has no hole and no repeat.
struct ServerBurstVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "server-burst-verify", abstract: "Check a burst survived a kill.")
    @Option var port: Int
    @Option var data: String
    @Option var acks: String

    func run() async throws {
        let key = try RunningServerKey.publicKey(data: data)
        let lines = try String(contentsOfFile: acks, encoding: .utf8).split(separator: "\n")
        // A line cut by the kill of the burst process itself is not an acknowledgement it finished recording.
        let acknowledged = lines.compactMap { line -> (Int64, Int32, Int32)? in
            let parts = line.split(separator: " ").compactMap { Int64($0) }
            return parts.count == 3 ? (parts[0], Int32(parts[1]), Int32(parts[2])) : nil
        }
        var checkedUsers = 0
        for (user, phone) in [(Int64(1001), "+15550001"), (1002, "+15550002"), (1003, "+15550003")] {
            let client = try await TestClient(port: port, publicKey: key)
            try await client.login(phone: phone)
            let finalPts = try await Self.checkLog(of: client, user: user)
            let mine = acknowledged.filter { $0.0 == user }
            for chunk in stride(from: 0, to: mine.count, by: 100) {
                let ids = mine[chunk..<min(chunk + 100, mine.count)].map(\.1)
                guard case let .messages(found) = try await client.call(API.functions.messages.GetMessages(
                    id: ids.map { .inputMessageID(.init(id: $0)) })) else { throw ValidationError("getMessages") }
                let present = Set(found.messages.compactMap { if case let .message(m) = $0 { m.id } else { nil } })
                if let lost = ids.first(where: { !present.contains($0) }) {
                    throw ValidationError("user \(user): acknowledged message \(lost) is missing after the restart")
                }
            }
            if let highest = mine.map(\.2).max(), highest > finalPts {
                throw ValidationError("user \(user): acknowledged pts \(highest) is above the stored pts \(finalPts)")
            }
            checkedUsers += 1
            await client.close()
        }
        print("\(acknowledged.count) acknowledged messages present; \(checkedUsers) users' pts sequences without holes")
    }

    /// Replays the whole log; every event must start where the previous one ended. Returns the final pts.
    static func checkLog(of client: TestClient, user: Int64) async throws -> Int32 {
        var pts: Int32 = 0
        while true {
            let difference = try await client.call(API.functions.updates.GetDifference(pts: pts, date: Int32.max, qts: 0))
            let (messages, others, state): ([API.Message], [API.Update], API.updates.State?)
            switch difference {
            case let .difference(value): (messages, others, state) = (value.newMessages, value.otherUpdates, value.state)
            case let .differenceSlice(value): (messages, others, state) = (value.newMessages, value.otherUpdates, value.intermediateState)
            case .differenceEmpty: return pts
            case let .differenceTooLong(value): throw ValidationError("user \(user): too long at pts \(value.pts)")
            }
            guard case let .state(next)? = state else { throw ValidationError("no state") }
            // New messages and reads each moved pts by one here: their count must fill the gap exactly.
            let events = Int32(messages.count + others.count { $0.constructorName != "updateChannelTooLong" })
            guard next.pts - pts == events else {
                throw ValidationError("user \(user): pts \(pts) → \(next.pts) carried \(events) events (a hole or a repeat)")
            }
            if case .difference = difference { return next.pts }
            pts = next.pts
        }
    }
}

/// The RSA key of a server running on a data directory (in its `server.sqlite`), for the crash tools that talk to it.
enum RunningServerKey {
    static func publicKey(data: String) throws -> RSAPublicKey {
        guard let key = try ServerKeys.rsaKey(dataDirectory: data) else {
            throw ValidationError("\(data) holds no server key yet: start the server on it first")
        }
        return key.publicKey
    }
}
