import SyncEngine
import TL

/// A malformed scenario: the field is named (`events[3].reply.to`).
public struct ReplayScenarioError: Error, Equatable, CustomStringConvertible {
    public let field: String
    public let reason: String

    public var description: String { "\(field): \(reason)" }
}

/// A `synccore replay` scenario (`docs/REPLAY-FORMAT.md`): the starting state, the peers the client knows, and the
/// events that reach the sequencer on a virtual clock.
public struct ReplayScenario: Sendable {
    public enum Event: Sendable {
        case push(API.Updates)
        /// The answer to the oldest outstanding request of `method` (and `channelID` for getChannelDifference);
        /// `session` is the number of the session it came on (the n-th `new_session` event is session n).
        case reply(method: String, channelID: Int64?, answer: Answer, session: Int?)
        case newSession
        case connectionClosed
        case sent(request: TLJSON, result: TLJSON)
        /// Only moves the clock.
        case tick
    }

    public enum Answer: Sendable {
        case result(TLJSON)
        case error(code: Int32, message: String)
    }

    public var selfID: Int64
    public var isBot: Bool
    public var state: SyncState
    public var knownUsers: [Int64]
    public var knownChannels: [Int64: Int64]
    public var events: [(at: Double, event: Event)]

    public init(json text: String) throws(ReplayScenarioError) {
        let root: TLJSONObject
        do {
            guard case let .object(object) = try TLJSON.parse(text) else { throw ReplayScenarioError(field: "scenario", reason: "not an object") }
            root = object
        } catch let error as ReplayScenarioError {
            throw error
        } catch {
            throw ReplayScenarioError(field: "scenario", reason: "\(error)")
        }
        let account = try Self.object(root["account"], "account", optional: true)
        selfID = try Self.integer(account?["self_id"], "account.self_id") ?? 0
        isBot = (account?["bot"]).map { $0 == .bool(true) } ?? false
        let stateObject = try Self.object(root["state"], "state", optional: true)
        var state = SyncState()
        state.pts = Int32(clamping: try Self.integer(stateObject?["pts"], "state.pts") ?? 0)
        state.qts = Int32(clamping: try Self.integer(stateObject?["qts"], "state.qts") ?? 0)
        state.seq = Int32(clamping: try Self.integer(stateObject?["seq"], "state.seq") ?? 0)
        state.date = Int32(clamping: try Self.integer(stateObject?["date"], "state.date") ?? 0)
        if let channels = try Self.object(stateObject?["channels"], "state.channels", optional: true) {
            for (key, value) in channels.fields {
                guard let id = Int64(key) else { throw ReplayScenarioError(field: "state.channels", reason: "key \(key) is not an id") }
                state.channels[id] = Int32(clamping: try Self.integer(value, "state.channels.\(key)") ?? 0)
            }
        }
        self.state = state
        guard case let .array(users) = root["known_users"] ?? .array([]) else {
            throw ReplayScenarioError(field: "known_users", reason: "not an array")
        }
        knownUsers = try users.enumerated().map { index, value throws(ReplayScenarioError) in
            try Self.integer(value, "known_users[\(index)]") ?? 0
        }
        knownChannels = [:]
        if let channels = try Self.object(root["known_channels"], "known_channels", optional: true) {
            for (key, value) in channels.fields {
                guard let id = Int64(key) else { throw ReplayScenarioError(field: "known_channels", reason: "key \(key) is not an id") }
                knownChannels[id] = try Self.integer(value, "known_channels.\(key)") ?? 0
            }
        }
        guard case let .array(list) = root["events"] ?? .array([]) else { throw ReplayScenarioError(field: "events", reason: "not an array") }
        var events: [(Double, Event)] = []
        var clock = 0.0
        for (index, value) in list.enumerated() {
            let field = "events[\(index)]"
            guard case let .object(event) = value else { throw ReplayScenarioError(field: field, reason: "not an object") }
            let at = try Self.number(event["at"], "\(field).at") ?? clock
            guard at >= clock else { throw ReplayScenarioError(field: "\(field).at", reason: "time goes backwards (\(at) < \(clock))") }
            clock = at
            events.append((at, try Self.event(event, field)))
        }
        self.events = events
    }

    private static func event(_ event: TLJSONObject, _ field: String) throws(ReplayScenarioError) -> Event {
        if let push = event["push"] {
            do {
                return .push(try API.Updates(json: push, context: .scenario.appending("\(field).push")))
            } catch {
                throw ReplayScenarioError(field: "\(field).push", reason: "\(error)")
            }
        }
        if let reply = try object(event["reply"], "\(field).reply", optional: true) {
            guard case let .string(method)? = reply["to"] else { throw ReplayScenarioError(field: "\(field).reply.to", reason: "missing") }
            let channel = try integer(reply["channel_id"], "\(field).reply.channel_id")
            let session = try integer(reply["session"], "\(field).reply.session").map { Int(clamping: $0) }
            if let error = try object(reply["error"], "\(field).reply.error", optional: true) {
                guard case let .string(message)? = error["message"] else {
                    throw ReplayScenarioError(field: "\(field).reply.error.message", reason: "missing")
                }
                let code = Int32(clamping: try integer(error["code"], "\(field).reply.error.code") ?? 0)
                return .reply(method: method, channelID: channel, answer: .error(code: code, message: message), session: session)
            }
            guard let result = reply["result"] else { throw ReplayScenarioError(field: "\(field).reply", reason: "needs result or error") }
            return .reply(method: method, channelID: channel, answer: .result(result), session: session)
        }
        if let connection = event["connection"] {
            switch connection {
            case .string("new_session"): return .newSession
            case .string("closed"): return .connectionClosed
            default: throw ReplayScenarioError(field: "\(field).connection", reason: "new_session or closed expected")
            }
        }
        if let sent = try object(event["sent"], "\(field).sent", optional: true) {
            guard let request = sent["request"], let result = sent["result"] else {
                throw ReplayScenarioError(field: "\(field).sent", reason: "needs request and result")
            }
            return .sent(request: request, result: result)
        }
        return .tick
    }

    static func object(_ value: TLJSON?, _ field: String, optional: Bool) throws(ReplayScenarioError) -> TLJSONObject? {
        switch value {
        case nil, .null?: if optional { return nil } else { throw ReplayScenarioError(field: field, reason: "missing") }
        case let .object(object)?: return object
        default: throw ReplayScenarioError(field: field, reason: "not an object")
        }
    }

    /// A JSON number or decimal string (longs), nil when absent.
    static func integer(_ value: TLJSON?, _ field: String) throws(ReplayScenarioError) -> Int64? {
        switch value {
        case nil, .null?: return nil
        case let .int(number)?: return number
        case let .double(number)? where number == number.rounded() && abs(number) < 9e15: return Int64(number)
        case let .string(text)?: if let number = Int64(text) { return number }
        default: break
        }
        throw ReplayScenarioError(field: field, reason: "not an integer")
    }

    static func number(_ value: TLJSON?, _ field: String) throws(ReplayScenarioError) -> Double? {
        switch value {
        case nil, .null?: return nil
        case let .int(number)?: return Double(number)
        case let .double(number)? where number.isFinite: return number
        default: throw ReplayScenarioError(field: field, reason: "not a number")
        }
    }
}
