import MTProto

/// Bulk data for benchmarks and demos, written straight into storage through the same code paths as
/// `messages.sendMessage` (both boxes, logs, dialogs), many messages per transaction, while no server runs on it.
public enum BulkSeeding {
    /// Stores `count` private messages from `sender` to `recipient` ("message 1"… unless `text` says otherwise for
    /// each index), `perTransaction` at a time.
    public static func privateMessages(in storage: any ServerStorage, from sender: Int64, to recipient: Int64, count: Int,
                                       date: Int32, perTransaction: Int = 1_000, environment: SyncEnvironment = .live,
                                       text: @escaping @Sendable (Int) -> String = { "message \($0 + 1)" }) async throws {
        let random = environment.random
        var sent = 0
        while sent < count {
            let batch = min(perTransaction, count - sent)
            let first = sent
            try await storage.write { tx in
                for index in first..<(first + batch) {
                    _ = try PrivateMessaging.send(OutgoingMessage(text: text(index), entities: []), from: sender, to: recipient,
                                                  randomID: random.int64(in: 1...Int64.max), date: date, in: tx)
                }
            }
            sent += batch
        }
    }
}

extension BulkSeeding {
    /// Stores `count` private messages from `sender` to `recipient`, one write per message with `inFlight` writes
    /// outstanding, as concurrent `messages.sendMessage` calls would (group commit gathers them): the storage share
    /// of a send, without network or encryption.
    public static func concurrentPrivateMessages(in storage: any ServerStorage, from sender: Int64, to recipient: Int64,
                                                 count: Int, inFlight: Int, date: Int32, environment: SyncEnvironment = .live) async throws {
        let random = environment.random
        try await withThrowingTaskGroup(of: Void.self) { group in
            var started = 0
            func start() {
                started += 1
                let text = "message \(started)"
                group.addTask {
                    _ = try await storage.write { tx in
                        try PrivateMessaging.send(OutgoingMessage(text: text, entities: []), from: sender, to: recipient,
                                                  randomID: random.int64(in: 1...Int64.max), date: date, in: tx)
                    }
                }
            }
            while started < min(inFlight, count) { start() }
            while try await group.next() != nil {
                if started < count { start() }
            }
        }
    }
}
