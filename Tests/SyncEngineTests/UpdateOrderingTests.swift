import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// Every layer-229 update that carries a pts or a qts is placed in its box: 20,000 random updates of every
/// constructor; one with a counter that came out unordered would desynchronise the box it belongs to.
struct UpdateOrderingTests {
    @Test func everyUpdateWithACounterIsOrdered() {
        var generator = TLArbitraryGenerator(seed: 229)
        var constructors: Set<String> = [], ordered: Set<String> = []
        for _ in 0..<20_000 {
            let update = API.Update.arbitrary(using: &generator)
            guard case let .object(fields) = update.toJSON() else { continue }
            constructors.insert(update.constructorName)
            let counter: Int64? = switch fields["pts"] ?? fields["qts"] {
            case let .int(value)?: value
            default: nil
            }
            guard let counter, counter > 0 else { continue }
            let ordering = UpdateOrdering(update)
            if case .ordered = ordering { ordered.insert(update.constructorName); continue }
            if case .channelTooLong = ordering { continue }   // its pts is optional and not a sequence position
            if ordering.isMalformed { continue }
            if Self.namesNoChannel(update) { continue }   // a channel message without a channel peer: unordered by rule (§2)
            Issue.record("\(update.constructorName) with counter \(counter) is \(ordering)")
        }
        #expect(constructors.count > 150)   // the whole Update type, not the old subset of 25
        #expect(ordered.isSuperset(of: ["updateNewMessage", "updateWebPage", "updateChannelWebPage", "updateBotStopped",
                                        "updateChannelParticipant", "updateNewEncryptedMessage"]))
    }

    static func namesNoChannel(_ update: API.Update) -> Bool {
        switch update {
        case let .updateNewChannelMessage(value): UpdateOrdering.channelID(of: value.message) == nil
        case let .updateEditChannelMessage(value): UpdateOrdering.channelID(of: value.message) == nil
        default: false
        }
    }
}
