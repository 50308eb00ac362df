/// The backend-neutral half of a write batch: rows kept in memory until they are written, and the undo journal that
/// takes a failed write's changes back.
///
/// Both backends batch (SQLite's `GroupCommit`, PostgreSQL's `PostgresGroupCommit`): many RPCs' writes share one
/// transaction, each under a savepoint. A write that throws is rolled back by its savepoint in the database, and here
/// by `UndoJournal.undo(_:to:)`: every change to a `JournaledMap` or `JournaledList` is journaled with a closure that
/// captures nothing (a plain function, no allocation) and pops the field's own record of what it replaced.
struct UndoJournal<Root> {
    private var steps: [(inout Root) -> Void] = []

    /// A point to come back to if the next write throws.
    var mark: Int { steps.count }

    /// Records how to take the latest change back.
    mutating func record(_ undo: @escaping (inout Root) -> Void) {
        steps.append(undo)
    }

    /// Takes back every change made to `root` since `mark`, newest first.
    static func undo(_ root: inout Root, journal: WritableKeyPath<Root, UndoJournal<Root>>, to mark: Int) {
        while root[keyPath: journal].steps.count > mark, let step = root[keyPath: journal].steps.popLast() {
            step(&root)
        }
    }
}

/// A dictionary whose every change can be taken back, newest first (`undoLast`), through the owner's `UndoJournal`.
struct JournaledMap<Key: Hashable, Value> {
    private(set) var values: [Key: Value] = [:]
    private var replaced: [(key: Key, previous: Value?)] = []

    subscript(key: Key) -> Value? { values[key] }
    var isEmpty: Bool { values.isEmpty }

    mutating func set(_ value: Value?, for key: Key) {
        replaced.append((key, values[key]))
        values[key] = value
    }

    mutating func undoLast() {
        guard let last = replaced.popLast() else { return }
        values[last.key] = last.previous
    }
}

/// An append-only list whose appends can be taken back, newest first.
struct JournaledList<Element> {
    private(set) var elements: [Element] = []

    var isEmpty: Bool { elements.isEmpty }

    mutating func append(_ element: Element) {
        elements.append(element)
    }

    mutating func undoLast() {
        _ = elements.popLast()
    }
}

/// A dialog row by owner and peer, as both backends key their pending dialogs.
struct DialogKey: Hashable {
    let owner: Int64
    let peer: PeerRef
}

/// A sent message by sender and `random_id` (idempotent sends).
struct SendKey: Hashable {
    let user: Int64
    let randomID: Int64
}

/// A dialog raised by new messages, as the send path asks for it; raises of one dialog merge (maxima, and unread
/// counts added).
struct DialogRaise {
    var topMessage: Int32
    var date: Int32
    var unread: Int32
    var readInboxTo: Int32

    /// `self` followed by `later`.
    func merged(with later: DialogRaise) -> DialogRaise {
        DialogRaise(topMessage: max(topMessage, later.topMessage), date: max(date, later.date),
                    unread: unread + later.unread, readInboxTo: max(readInboxTo, later.readInboxTo))
    }
}
