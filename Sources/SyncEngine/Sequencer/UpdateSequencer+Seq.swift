import TL

/// The part of a container the seq check decides on: its unordered updates and its seq range and date.
struct SeqPart: Equatable, Sendable {
    var updates: [API.Update]
    var seqStart: Int32
    var seq: Int32
    var date: Int32
    /// The container's users that an update here is read with (a contact change is told by the user's `contact`
    /// flag), merged again right before the part is delivered: a part held back by a gap is delivered after other
    /// containers' users were merged.
    var users: [API.User] = []

    init(updates: [API.Update], seqStart: Int32, seq: Int32, date: Int32, users: [API.User] = []) {
        (self.updates, self.seqStart, self.seq, self.date) = (updates, seqStart, seq, date)
        let read = Set(updates.compactMap(UpdateHandlers.userReadWith))
        self.users = read.isEmpty ? [] : users.filter { read.contains($0.id) }
    }
}

/// Containers held back by a seq gap, ordered by `seqStart`, until `expires`.
struct SeqGap: Sendable {
    var parts: [SeqPart]
    var expires: Double
}

/// The seq check (UPDATE-RULES §4, core.telegram.org/api/updates#update-handling): applied to what a container
/// holds besides its pts updates. `seq_start` 0 applies at once, moves no seq and moves the date forward (as the
/// doc says and grammers applies it); `local + 1 == seq_start` applies and moves seq and date; older is dropped; a
/// gap waits `possibleGapWait` for the missing containers, then fetches a difference.
///
/// A difference is asked from the date: a server lists the updates without pts dated from it, so an unordered
/// container never moves the date while a seq gap waits (the difference must still list the lost containers).
extension UpdateSequencer {
    mutating func seqCheck(_ part: SeqPart, now: Double) {
        if commonFetch != nil {
            if part.seqStart != 0 || !part.updates.isEmpty { postponedSeq.append(part) }
            if postponedSeq.count > Self.possibleGapLimit {   // bounded as the pts buffers are
                postponedSeq.removeAll()
                requestFreshDifference(of: .common, now: now)
            }
            return
        }
        if part.seqStart == 0 {
            // Unordered by seq: it passes and moves no seq, but its date is the state's from now on
            // (core.telegram.org/api/updates: "local Updates state must be updated with seq (unless it's 0) and
            // date"), so the next difference is asked from it. Not while a seq gap waits: that difference must
            // still list the containers the gap is missing, which are dated before this one.
            deliver(part)
            if seqGap == nil, part.date > state.date { state.date = part.date }
            return
        }
        // 64 bits: a server's seq may be Int32.max. A stored seq of 0 is a known state too (an account whose box has
        // told nothing yet): the first container after it must start at 1, or the ones before it were lost — taking
        // any container then lost a dropped first pin for good while its successor moved seq past it.
        let expected = Int64(state.seq) + 1
        if Int64(part.seqStart) == expected {
            applySeq(part)
            rescanSeqGap()
        } else if Int64(part.seqStart) > expected {
            if seqGap == nil { seqGap = SeqGap(parts: [], expires: now + configuration.possibleGapWait) }
            seqGap?.parts.append(part)
            seqGap?.parts.sort { $0.seqStart < $1.seqStart }
            if let waiting = seqGap?.parts.count, waiting > Self.possibleGapLimit {
                seqGap = nil
                requestCommonDifference(now: now)
            }
        }
        // part.seqStart < expected: already applied; dropped.
    }

    private mutating func deliver(_ part: SeqPart) {
        if !part.users.isEmpty { outputs.append(.entities(users: part.users, chats: [])) }
        for update in part.updates { outputs.append(.deliver(update)) }
    }

    private mutating func applySeq(_ part: SeqPart) {
        deliver(part)
        if part.seq != 0 { state.seq = part.seq }
        if part.date != 0 { state.date = part.date }
    }

    private mutating func rescanSeqGap() {
        guard var gap = seqGap else { return }
        var kept: [SeqPart] = []
        for part in gap.parts {
            if Int64(part.seqStart) == Int64(state.seq) + 1 {
                applySeq(part)
            } else if Int64(part.seqStart) > Int64(state.seq) + 1 {
                kept.append(part)
            }
        }
        gap.parts = kept
        seqGap = kept.isEmpty ? nil : gap
    }
}
