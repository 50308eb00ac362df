import Foundation

/// A schema error with the line it was found on.
struct TLSchemaError: Error, CustomStringConvertible, Equatable {
    var line: Int
    var message: String
    var description: String { "line \(line): \(message)" }
}

/// Parses the TL schema language (core.telegram.org/mtproto/TL-formal): `//` and `/* */` comments,
/// `---types---` / `---functions---` sections, combinators `name#id {X:Type} a:T b:flags.N?T = R;` with
/// `#`, `!X`, `%T`, `Vector<T>`, bare `vector<T>` and repeated groups `n*[ … ]`, and the declarations
/// `New`/`Final`/`Empty`, which describe types and define no combinator.
struct TLSchemaParser {
    var verifyIDs = true

    func parse(_ text: String) throws(TLSchemaError) -> TLSchema {
        var schema = TLSchema()
        var isFunctionSection = false
        var pending = ""
        var pendingLine = 0
        var inBlockComment = false

        for (index, rawLine) in text.components(separatedBy: "\n").enumerated() {
            let lineNumber = index + 1
            var line = rawLine
            if inBlockComment {
                guard let end = line.range(of: "*/") else { continue }
                line = String(line[end.upperBound...])
                inBlockComment = false
            }
            while let start = line.range(of: "/*") {
                if let end = line.range(of: "*/", range: start.upperBound..<line.endIndex) {
                    line.removeSubrange(start.lowerBound..<end.upperBound)
                } else {
                    line = String(line[..<start.lowerBound])
                    inBlockComment = true
                }
            }
            if let comment = line.range(of: "//") {
                let commentText = line[comment.upperBound...].trimmingCharacters(in: .whitespaces)
                if commentText.hasPrefix("LAYER "), let layer = Int(commentText.dropFirst(6)) { schema.layer = layer }
                line = String(line[..<comment.lowerBound])
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if pending.isEmpty {
                if trimmed == "---types---" { isFunctionSection = false; continue }
                if trimmed == "---functions---" { isFunctionSection = true; continue }
                if trimmed.hasPrefix("---") { throw TLSchemaError(line: lineNumber, message: "unknown section \(trimmed)") }
                pendingLine = lineNumber
            }
            pending += (pending.isEmpty ? "" : " ") + trimmed
            while let semicolon = pending.firstIndex(of: ";") {
                let definition = String(pending[..<semicolon]).trimmingCharacters(in: .whitespaces)
                pending = String(pending[pending.index(after: semicolon)...]).trimmingCharacters(in: .whitespaces)
                if let combinator = try parseDefinition(definition, isFunction: isFunctionSection, line: pendingLine) {
                    if combinator.isFunction { schema.functions.append(combinator) } else { schema.constructors.append(combinator) }
                }
                pendingLine = lineNumber
            }
        }
        if !pending.isEmpty { throw TLSchemaError(line: pendingLine, message: "definition without ';': \(pending)") }
        return schema
    }

    /// Parses one definition (text before `;`). Returns nil for type declarations (`New T`, `Final T`, `Empty T`).
    func parseDefinition(_ definition: String, isFunction: Bool, line: Int) throws(TLSchemaError) -> TLCombinator? {
        let tokens = tokenize(definition)
        guard let first = tokens.first else { throw TLSchemaError(line: line, message: "empty definition") }
        if ["New", "Final", "Empty"].contains(first) { return nil }
        guard let equals = tokens.firstIndex(of: "=") else {
            throw TLSchemaError(line: line, message: "no '=' in \(definition)")
        }
        let (name, explicitID) = try parseName(first, line: line)
        var typeParameters: [String] = []
        var parameters: [TLParameter] = []
        var index = 1
        while index < equals {
            let token = tokens[index]
            if token.hasPrefix("{") {
                guard token.hasSuffix("}"), let colon = token.firstIndex(of: ":") else {
                    throw TLSchemaError(line: line, message: "bad type parameter \(token)")
                }
                typeParameters.append(String(token[token.index(after: token.startIndex)..<colon]))
                index += 1
            } else if token == "[" || token.hasSuffix("[") {
                let (parameter, next) = try parseRepetition(tokens, at: index, end: equals, line: line)
                parameters.append(parameter)
                index = next
            } else {
                parameters.append(try parseParameter(token, line: line))
                index += 1
            }
        }
        let resultTokens = tokens[(equals + 1)...]
        guard let resultHead = resultTokens.first else { throw TLSchemaError(line: line, message: "no result type") }
        var result = try parseType(resultHead, line: line)
        // `= Vector t` is the space-separated form of `Vector<t>`.
        for argument in resultTokens.dropFirst() { result.arguments.append(try parseType(argument, line: line)) }

        let computed = TLCRC32.combinatorID(definition: definition)
        if verifyIDs, let explicitID, explicitID != computed {
            throw TLSchemaError(
                line: line,
                message: "\(name): id #\(String(explicitID, radix: 16)) does not match CRC32 #\(String(computed, radix: 16)) of the definition"
            )
        }
        return TLCombinator(
            name: name, explicitID: explicitID, computedID: computed, typeParameters: typeParameters,
            parameters: parameters, result: result, isFunction: isFunction, line: line
        )
    }

    private func tokenize(_ text: String) -> [String] {
        text.replacingOccurrences(of: "[", with: " [ ")
            .replacingOccurrences(of: "]", with: " ] ")
            .replacingOccurrences(of: "=", with: " = ")
            .split(whereSeparator: { $0 == " " || $0 == "\t" })
            .map(String.init)
    }

    private func parseName(_ token: String, line: Int) throws(TLSchemaError) -> (String, UInt32?) {
        guard let hash = token.firstIndex(of: "#") else { return (token, nil) }
        let hex = token[token.index(after: hash)...]
        guard !hex.isEmpty, hex.count <= 8, let id = UInt32(hex, radix: 16) else {
            throw TLSchemaError(line: line, message: "bad constructor id in \(token)")
        }
        return (String(token[..<hash]), id)
    }

    private func parseParameter(_ token: String, line: Int) throws(TLSchemaError) -> TLParameter {
        guard let colon = token.firstIndex(of: ":") else {
            // An anonymous parameter: `#` or a bare type.
            return TLParameter(name: "", type: try parseType(token, line: line))
        }
        let name = String(token[..<colon])
        var typeText = String(token[token.index(after: colon)...])
        var condition: TLFlagCondition?
        if let question = typeText.firstIndex(of: "?") {
            let conditionText = typeText[..<question]
            guard let dot = conditionText.firstIndex(of: "."),
                  let bit = Int(conditionText[conditionText.index(after: dot)...]), (0..<32).contains(bit)
            else { throw TLSchemaError(line: line, message: "bad flag condition in \(token)") }
            condition = TLFlagCondition(field: String(conditionText[..<dot]), bit: bit)
            typeText = String(typeText[typeText.index(after: question)...])
        }
        guard !name.isEmpty else { throw TLSchemaError(line: line, message: "parameter without a name: \(token)") }
        return TLParameter(name: name, type: try parseType(typeText, line: line), condition: condition)
    }

    /// `[ t ]` or `n*[ int ]`, possibly with a name: `data:n*[ int ]`.
    private func parseRepetition(
        _ tokens: [String], at start: Int, end: Int, line: Int
    ) throws(TLSchemaError) -> (TLParameter, Int) {
        let head = tokens[start]
        var name = ""
        if head != "[", let colon = head.firstIndex(of: ":") { name = String(head[..<colon]) }
        guard let close = tokens[start..<end].firstIndex(of: "]") else {
            throw TLSchemaError(line: line, message: "unclosed '[' in repeated group")
        }
        var inner: [TLParameter] = []
        for token in tokens[(start + 1)..<close] where token != "[" { inner.append(try parseParameter(token, line: line)) }
        let parameter = TLParameter(name: name, type: TLTypeExpr(name: "#", isBare: true), repetition: inner)
        return (parameter, close + 1)
    }

    func parseType(_ text: String, line: Int) throws(TLSchemaError) -> TLTypeExpr {
        var rest = Substring(text)
        var isBang = false
        var isPercent = false
        if rest.hasPrefix("!") { isBang = true; rest = rest.dropFirst() }
        if rest.hasPrefix("%") { isPercent = true; rest = rest.dropFirst() }
        var arguments: [TLTypeExpr] = []
        if let open = rest.firstIndex(of: "<") {
            guard rest.hasSuffix(">") else { throw TLSchemaError(line: line, message: "unclosed '<' in \(text)") }
            let inner = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
            for part in splitTopLevel(inner) { arguments.append(try parseType(String(part), line: line)) }
            rest = rest[..<open]
        }
        guard !rest.isEmpty, rest.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "#" }) else {
            throw TLSchemaError(line: line, message: "bad type \(text)")
        }
        let name = String(rest)
        let last = name.split(separator: ".").last.map(String.init) ?? name
        let isBare = isPercent || (last.first?.isLowercase ?? false)
        return TLTypeExpr(name: name, isBare: isBare, isBang: isBang, arguments: arguments)
    }

    private func splitTopLevel(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for index in text.indices {
            switch text[index] {
            case "<": depth += 1
            case ">": depth -= 1
            case "," where depth == 0:
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        parts.append(text[start...])
        return parts
    }
}
