import Foundation

/// The claims of a provider's userinfo answer (OpenID Connect Core §5.3.2) that Notes reads:
/// the ones an account is named and joined by, which some providers (nanoidp, and others that
/// keep ID tokens small) send only here.
struct UserInfoClaims: Decodable, Sendable, Equatable {
    let sub: String
    let email: String?
    let emailVerified: Bool
    let preferredUsername: String?

    private enum CodingKeys: String, CodingKey {
        case sub, email
        case emailVerified = "email_verified"
        case preferredUsername = "preferred_username"
    }

    init(sub: String, email: String?, emailVerified: Bool, preferredUsername: String?) {
        self.sub = sub
        self.email = email
        self.emailVerified = emailVerified
        self.preferredUsername = preferredUsername
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decode(String.self, forKey: .sub)
        email = try? container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = IDTokenClaims.emailVerified(in: container, forKey: .emailVerified).verified
        preferredUsername = try? container.decodeIfPresent(String.self, forKey: .preferredUsername)
    }
}
