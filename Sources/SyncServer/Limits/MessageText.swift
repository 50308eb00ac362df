extension String {
    /// Whether the text is empty once leading and trailing white space and line breaks are trimmed (a message made of
    /// them alone is refused with `MESSAGE_EMPTY`): every scalar has Unicode's White_Space property, the same set as
    /// Foundation's `CharacterSet.whitespacesAndNewlines`. Foundation's trimming bridges through `NSString` on Linux and
    /// took about 3% of a sending process's CPU (`perf`, `bench server --postgres`); this stops at the first visible
    /// scalar, the first one of nearly every message.
    var isBlank: Bool {
        unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }
}
