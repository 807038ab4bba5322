import Testing
@testable import NotesServer

@Suite("Operations: connection and body limit defaults")
struct ServerLimitDefaultsTests {
    @Test("64 connections per address by default; off behind trusted proxies unless set; an explicit value always wins")
    func perAddressConnectionDefaults() throws {
        var configuration = ServerConfiguration()
        #expect(configuration.effectiveConnectionsPerAddress == 64)
        configuration.trustedProxies = [try #require(AddressRange("127.0.0.1"))]
        #expect(configuration.effectiveConnectionsPerAddress == 0, "the proxy's connections carry every client")
        configuration.connectionsPerAddress = 500
        #expect(configuration.effectiveConnectionsPerAddress == 500)
    }

    @Test("the published limits include the page bound and the body size allowed without a token")
    func publishedLimits() {
        let limits = ServerConfiguration().limits
        #expect(limits.maxPageBytes == 4 * 1024 * 1024)
        #expect(limits.maxUnauthenticatedRequestBytes == Router.defaultOpenBodyLimit)
        #expect(ServerConfiguration().bodyBudgetBytes >= limits.maxRequestBytes)
    }
}
