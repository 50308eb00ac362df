import MTProto
import SyncEngine
import TL

/// Runs a scenario through `UpdateSequencer` on a virtual clock, with no network and no disk, and writes what the
/// engine did as JSON lines (`docs/REPLAY-FORMAT.md`): deliveries, requests, events, and the final state last.
/// Before each event every timer due at or before its time fires, in deadline order. A reply answers the oldest
/// outstanding request of its method (and channel); a reply nothing asked for is a scenario error.
public struct ReplayRunner {
    private var sequencer: UpdateSequencer
    private var outstanding: [(method: String, channel: Int64?)] = []
    private var lines: [String] = []
    private var clock = 0.0
    /// `new_session` events so far: the n-th is session n.
    private var sessions = 0

    public static func run(_ scenario: ReplayScenario) throws(ReplayScenarioError) -> [String] {
        var runner = ReplayRunner(scenario)
        return try runner.play(scenario.events)
    }

    private init(_ scenario: ReplayScenario) {
        let peers = PeerKnowledge(users: Dictionary(uniqueKeysWithValues: scenario.knownUsers.map { ($0, 0) }),
                                  channels: scenario.knownChannels)
        sequencer = UpdateSequencer(state: scenario.state, peers: peers,
                                    configuration: .init(selfID: scenario.selfID, isBot: scenario.isBot), now: 0)
    }

    private mutating func play(_ events: [(at: Double, event: ReplayScenario.Event)]) throws(ReplayScenarioError) -> [String] {
        record(sequencer.start(now: 0))
        for (index, (at, event)) in events.enumerated() {
            while let due = sequencer.nextDeadline, due <= at {
                clock = due
                record(sequencer.fireTimers(now: due))
            }
            clock = at
            try handle(event, field: "events[\(index)]")
        }
        let channels = TLJSONObject(fields: sequencer.state.channels.sorted { $0.key < $1.key }.map { (String($0.key), .int(Int64($0.value))) })
        var state = TLJSONObject()
        state.append("pts", .int(Int64(sequencer.state.pts)))
        state.append("qts", .int(Int64(sequencer.state.qts)))
        state.append("seq", .int(Int64(sequencer.state.seq)))
        state.append("date", .int(Int64(sequencer.state.date)))
        state.append("channels", .object(channels))
        line("state", .object(state))
        return lines
    }

    private mutating func handle(_ event: ReplayScenario.Event, field: String) throws(ReplayScenarioError) {
        switch event {
        case let .push(updates):
            record(sequencer.push(updates, now: clock))
        case let .reply(method, channel, answer, session):
            guard let index = outstanding.firstIndex(where: { $0.method == method && (method != Self.channelMethod || $0.channel == channel) })
            else { throw ReplayScenarioError(field: "\(field).reply", reason: "no outstanding \(method) request to answer") }
            outstanding.remove(at: index)
            try answerRequest(method, channel: channel, answer, session: session, field: "\(field).reply")
        case .newSession:
            sessions += 1
            record(sequencer.sessionChanged(session: sessions, now: clock))
        case .connectionClosed, .tick:
            break
        case let .sent(request, result):
            try sent(request, result, field: "\(field).sent")
        }
    }

    private static let differenceMethod = "updates.getDifference"
    private static let channelMethod = "updates.getChannelDifference"

    private mutating func answerRequest(_ method: String, channel: Int64?, _ answer: ReplayScenario.Answer, session: Int?,
                                        field: String) throws(ReplayScenarioError) {
        switch (method, answer) {
        case (Self.differenceMethod, let .result(json)):
            record(sequencer.differenceReceived(try Self.decode(json, field: "\(field).result"), session: session, now: clock))
        case (Self.differenceMethod, let .error(code, message)):
            record(sequencer.differenceFailed(RPCError(code: code, message: message), now: clock))
        case (Self.channelMethod, let .result(json)):
            record(sequencer.channelDifferenceReceived(channel ?? 0, try Self.decode(json, field: "\(field).result"), now: clock))
        case (Self.channelMethod, let .error(code, message)):
            record(sequencer.channelDifferenceFailed(channel ?? 0, RPCError(code: code, message: message), now: clock))
        default:
            throw ReplayScenarioError(field: "\(field).to", reason: "the engine sends no \(method)")
        }
    }

    /// The result of an RPC the app made: `Updates` (a sent message's joined with its `sendMessage`), or
    /// `messages.affected*` counters (in the channel's box for a `channels.*` request naming one).
    private mutating func sent(_ request: TLJSON, _ result: TLJSON, field: String) throws(ReplayScenarioError) {
        guard case let .object(resultObject) = result, case let .string(name)? = resultObject["_"] else {
            throw ReplayScenarioError(field: "\(field).result", reason: "not a TL object")
        }
        if name.hasPrefix("messages.affected") {
            let pts = Int32(clamping: try ReplayScenario.integer(resultObject["pts"], "\(field).result.pts") ?? 0)
            let count = Int32(clamping: try ReplayScenario.integer(resultObject["pts_count"], "\(field).result.pts_count") ?? 0)
            var channel: Int64?
            if case let .object(requestObject) = request, case let .object(input)? = requestObject["channel"] {
                channel = try ReplayScenario.integer(input["channel_id"], "\(field).request.channel.channel_id")
            }
            record(sequencer.affected(pts: pts, count: count, channel: channel, now: clock))
            return
        }
        let updates: API.Updates = try Self.decode(result, field: "\(field).result")
        var send: API.functions.messages.SendMessage?
        if case let .object(requestObject) = request, requestObject["_"] == .string("messages.sendMessage") {
            send = try Self.decode(request, field: "\(field).request")
        }
        record(sequencer.sent(updates, request: send, now: clock))
    }

    private static func decode<Value: TLJSONRepresentable>(_ json: TLJSON, field: String) throws(ReplayScenarioError) -> Value {
        do {
            return try Value(json: json, context: .scenario.appending(field))
        } catch {
            throw ReplayScenarioError(field: field, reason: "\(error)")
        }
    }

    // MARK: output

    private mutating func record(_ outputs: [SequencerOutput]) {
        for output in outputs {
            switch output {
            case let .deliver(update):
                line("deliver", update.toJSON())
            case .entities:
                break
            case let .getDifference(pts, qts, date):
                outstanding.append((Self.differenceMethod, nil))
                line("request", .object(TLJSONObject(fields: [
                    ("_", .string(Self.differenceMethod)), ("pts", .int(Int64(pts))), ("qts", .int(Int64(qts))), ("date", .int(Int64(date))),
                ])))
            case let .getChannelDifference(channel, _, pts, limit):
                outstanding.append((Self.channelMethod, channel))
                line("request", .object(TLJSONObject(fields: [
                    ("_", .string(Self.channelMethod)), ("channel_id", .int(channel)), ("pts", .int(Int64(pts))), ("limit", .int(Int64(limit))),
                ])))
            case .differenceTooLong:
                line("event", .string("difference_too_long"))
            case let .channelReset(channel, _):
                lines.append(TLJSON.object(TLJSONObject(fields: [
                    ("at", .double(clock)), ("event", .string("channel_reset")), ("channel_id", .int(channel)),
                ])).serialized())
            }
        }
    }

    private mutating func line(_ key: String, _ value: TLJSON) {
        lines.append(TLJSON.object(TLJSONObject(fields: [("at", .double(clock)), (key, value)])).serialized())
    }
}
