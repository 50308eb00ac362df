import MTProto

/// A chat of the simulated world, as a user sees it: another user's private chat, or the @lounge supergroup.
public enum SimulatedChat: Hashable, Sendable, CustomStringConvertible {
    case user(Int)
    case lounge

    public var description: String {
        switch self {
        case let .user(index): SimulationPlan.names[index]
        case .lounge: "@lounge"
        }
    }
}

/// One thing a simulated run does. Users are indexes into `SimulationPlan.names`.
public enum SimulationStep: Sendable, Equatable, CustomStringConvertible {
    /// A private message through the sender's outbox.
    case send(from: Int, to: Int)
    /// A post in @lounge through the sender's outbox.
    case post(from: Int)
    /// A message through the sender's outbox replying to the newest message the sender's store holds in the chat (a
    /// plain message if it holds none).
    case reply(from: Int, chat: SimulatedChat)
    /// The user marks the chat read up to its newest stored message (through the operation log).
    case markRead(user: Int, chat: SimulatedChat)
    /// Alice's other device, connected straight to the server: its actions reach her account only as updates.
    case otherDevice(OtherDeviceAction)
    /// Every relayed connection closed (the clients reconnect in new sessions).
    case cutConnections
    /// The server stopped and started again on the same data.
    case restartServer
    /// The user's account closed and opened again from its directory.
    case restartClient(Int)
    /// Every relayed connection cut, then no app calls at all for a while: Alice's other device writes to Bob and
    /// Carol, and their accounts must receive it by themselves (reconnect, new session, difference) before it ends.
    case idle(milliseconds: Int)
    /// The user logs out (the store kept) and in again: syncing stops and resumes from the stored state.
    case logOutAndIn(Int)
    case setFaults(FaultRates)
    case pause(milliseconds: Int)

    public var description: String {
        switch self {
        case let .send(from, to): "\(SimulationPlan.names[from]) sends to \(SimulationPlan.names[to])"
        case let .post(from): "\(SimulationPlan.names[from]) posts in @lounge"
        case let .reply(from, chat): "\(SimulationPlan.names[from]) replies in \(chat)"
        case let .markRead(user, chat): "\(SimulationPlan.names[user]) reads \(chat)"
        case let .otherDevice(action): "Alice's other device: \(action)"
        case .cutConnections: "cut every connection"
        case .restartServer: "restart the server"
        case let .restartClient(user): "restart \(SimulationPlan.names[user])'s account"
        case let .idle(milliseconds): "cut every connection, then \(milliseconds) ms without app activity"
        case let .logOutAndIn(user): "\(SimulationPlan.names[user]) logs out and in again"
        case let .setFaults(rates): "faults: \(rates)"
        case let .pause(milliseconds): "pause \(milliseconds) ms"
        }
    }
}

/// What Alice's other device does.
public enum OtherDeviceAction: Sendable, Equatable, CustomStringConvertible {
    case send(to: Int)
    case post
    /// Edits her newest message in the chat (if any).
    case editLatest(SimulatedChat)
    /// Deletes her newest message in the chat, for everyone (if any).
    case deleteLatest(SimulatedChat)
    /// Pins her newest message in the chat for everyone, or unpins it if it is pinned.
    case togglePinLatest(SimulatedChat)
    /// Changes her first name (told to her devices and chat partners as `updateUserName`, with seq).
    case rename
    /// Pins the chat in her chat list, or unpins it if it is pinned (`updateDialogPinned`, with seq).
    case togglePinChat(SimulatedChat)
    /// Blocks the user, or unblocks them if blocked (`updatePeerBlocked`, with seq).
    case toggleBlock(Int)
    /// Adds the user to her contacts under a name of the step's, or removes them if they are one
    /// (`updatePeerSettings`, with seq, read with the user's contact flag).
    case toggleContact(Int)

    public var description: String {
        switch self {
        case let .send(to): "sends to \(SimulationPlan.names[to])"
        case .post: "posts in @lounge"
        case let .editLatest(chat): "edits her newest message in \(chat)"
        case let .deleteLatest(chat): "deletes her newest message in \(chat)"
        case let .togglePinLatest(chat): "pins or unpins her newest message in \(chat)"
        case .rename: "changes her first name"
        case let .togglePinChat(chat): "pins or unpins \(chat) in her chat list"
        case let .toggleBlock(user): "blocks or unblocks \(SimulationPlan.names[user])"
        case let .toggleContact(user): "adds or removes \(SimulationPlan.names[user]) as a contact"
        }
    }
}

/// Everything a seed decides before a run starts: the server's paging limits, the first fault rates and the steps.
/// The same seed gives the same plan; the run itself also depends on thread timing, which no seed fixes.
public struct SimulationPlan: Sendable {
    /// The development accounts (`synccore server --seed dev`), in index order.
    public static let names = ["Alice", "Bob", "Carol"]
    public static let phones = ["+15550001", "+15550002", "+15550003"]

    public let seed: UInt64
    /// `updates.getDifference` pages (small, so catch-ups go through slices).
    public let differencePageSize: Int
    /// Channel events behind after which `getChannelDifference` answers too-long (small in some runs).
    public let channelTooLongThreshold: Int
    public private(set) var steps: [SimulationStep]

    public init(seed: UInt64, stepCount: Int = 40) {
        self.init(seed: seed, stepCount: stepCount, withAccountState: true)
    }

    /// `withAccountState`: also Alice's renames, chat pins, blocks and contacts (updates without pts, told with seq).
    public init(seed: UInt64, stepCount: Int, withAccountState: Bool) {
        var rng = SplitMix64(seed: seed)
        self.seed = seed
        differencePageSize = Int.random(in: 2...8, using: &rng)
        channelTooLongThreshold = Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 2...6, using: &rng) : 10_000
        var steps: [SimulationStep] = [.setFaults(Self.faults(&rng))]
        for _ in 0..<stepCount {
            steps.append(Self.step(&rng))
            if Int.random(in: 0..<3, using: &rng) == 0 { steps.append(.pause(milliseconds: Int.random(in: 1...40, using: &rng))) }
        }
        // A third of the sends and posts become replies, drawn from a stream of their own so that the rest of each
        // seed's plan stayed what it was before replies existed.
        var replies = SplitMix64(seed: seed ^ 0x5265_706C_6965_73)
        var pins = SplitMix64(seed: seed ^ 0x5069_6E73)   // the same for the other device's pins, drawn from its edits
        self.steps = steps.map { step in
            guard Int.random(in: 0..<3, using: &replies) == 0 else { return step }
            switch step {
            case let .send(from, to): return .reply(from: from, chat: .user(to))
            case let .post(from): return .reply(from: from, chat: .lounge)
            default: return step
            }
        }.map { step in
            guard case let .otherDevice(.editLatest(chat)) = step, Bool.random(using: &pins) else { return step }
            return .otherDevice(.togglePinLatest(chat))
        }
        if withAccountState {
            // Updates without pts (a new name, a pinned chat, a block, a contact) after one step in ten, from a stream of
            // their own.
            var accountState = SplitMix64(seed: seed ^ 0x4163_636F_756E_74)
            self.steps = self.steps.flatMap { step -> [SimulationStep] in
                guard Int.random(in: 0..<10, using: &accountState) == 0 else { return [step] }
                let user = Int.random(in: 1...2, using: &accountState)
                let chat: SimulatedChat = Bool.random(using: &accountState) ? .lounge : .user(user)
                let action: [OtherDeviceAction] = [.rename, .togglePinChat(chat), .toggleBlock(user), .toggleContact(user)]
                return [step, .otherDevice(action[Int.random(in: 0..<action.count, using: &accountState)])]
            }
        }
    }

    /// A fault profile: calm, lossy, duplicating, slow and reordering, or all at once.
    static func faults(_ rng: inout SplitMix64) -> FaultRates {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: .none
        case 1: FaultRates(drop: 0.05, cut: 0.01)
        case 2: FaultRates(duplicate: 0.2)
        case 3: FaultRates(delay: 0.3, maximumDelayMilliseconds: 40)
        default: FaultRates(drop: 0.03, duplicate: 0.1, delay: 0.2, maximumDelayMilliseconds: 30, cut: 0.01)
        }
    }

    static func step(_ rng: inout SplitMix64) -> SimulationStep {
        let user = Int.random(in: 0..<3, using: &rng)
        let other = (user + Int.random(in: 1...2, using: &rng)) % 3
        let chat: SimulatedChat = Bool.random(using: &rng) ? .lounge : .user(Int.random(in: 1...2, using: &rng))
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<35: return .send(from: user, to: other)
        case 35..<50: return .post(from: user)
        case 50..<60: return .markRead(user: user, chat: Bool.random(using: &rng) ? .lounge : .user(other))
        case 60..<66: return .otherDevice(.send(to: Int.random(in: 1...2, using: &rng)))
        case 66..<70: return .otherDevice(.post)
        case 70..<76: return .otherDevice(.editLatest(chat))
        case 76..<81: return .otherDevice(.deleteLatest(chat))
        case 81..<86: return .cutConnections
        case 86..<89: return .restartServer
        case 89..<94: return .restartClient(user)
        case 94..<96: return .idle(milliseconds: Int.random(in: 1_000...2_500, using: &rng))
        case 96..<98: return .logOutAndIn(user)
        default: return .setFaults(faults(&rng))
        }
    }
}
