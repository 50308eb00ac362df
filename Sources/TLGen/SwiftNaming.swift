import Foundation

/// How TL names become Swift names: `p_q_inner_data_dc` → `PQInnerDataDc` (types, constructor structs),
/// `pQInnerDataDc` (enum cases), `server_nonce` → `serverNonce` (fields). Keywords are escaped with backticks.
enum SwiftNaming {
    static func upperCamel(_ name: String) -> String {
        name.split(separator: "_").map { part in part.prefix(1).uppercased() + part.dropFirst() }.joined()
    }

    static func lowerCamel(_ name: String) -> String {
        let upper = upperCamel(name)
        return upper.prefix(1).lowercased() + upper.dropFirst()
    }

    static func field(_ name: String) -> String {
        escaped(lowerCamel(name))
    }

    /// A field name as an argument label: keywords need no backticks there, except `inout`, `var` and `let`.
    static func label(_ name: String) -> String {
        let plain = lowerCamel(name)
        return ["inout", "var", "let"].contains(plain) ? "`\(plain)`" : plain
    }

    static func escaped(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// The name without backticks, for building derived local names.
    static func plain(_ identifier: String) -> String {
        identifier.replacingOccurrences(of: "`", with: "")
    }

    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "Type",
    ]
}
