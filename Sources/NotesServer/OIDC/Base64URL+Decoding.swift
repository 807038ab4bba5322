import Foundation

extension Base64URL {
    /// The bytes of unpadded base64url `text` (RFC 7515 §2, the encoding of every part of a JWS
    /// and of JWK key material), or `nil` when it holds anything else: padding, `+`, `/`,
    /// whitespace, or a length no encoding produces.
    static func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "-": standard.append("+")
            case "_": standard.append("/")
            default: return nil
            }
        }
        switch standard.utf8.count % 4 {
        case 0: break
        case 2: standard += "=="
        case 3: standard += "="
        default: return nil
        }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
