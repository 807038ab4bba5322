import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// The deployment of `docs/scaling.md`: two `notes-server` processes on one PostgreSQL database behind
/// nginx (round robin), real `notes` clients syncing folders through it in parallel, and one
/// server killed with `kill -9` halfway. The clients go on through the other one, and in the end
/// every folder equals the server and nothing a sync acknowledged is missing.
///
/// Loopback only: the servers, nginx and the cluster's Unix socket. Skipped, with the reason,
/// when no PostgreSQL cluster is configured (unless `NOTES_REQUIRE_POSTGRES=1`) or nginx is not
/// installed.
@Suite("Deployment: two servers on one PostgreSQL behind nginx",
       .timeLimit(.minutes(5)),
       .needsPostgresCluster,
       .enabled(if: NginxLoadBalancer.isInstalled || TestPostgresCluster.isRequired,
                "nginx is not installed (scripts/install-deps --for-tests installs Debian's nginx-light)"))
struct LoadBalancedDeploymentTests {
    static let clients = 3
    static let rounds = 6
    /// The round before which every client waits for the kill, so each syncs before and after it.
    static let killBeforeRound = 2

    @Test("clients syncing through nginx in parallel go on when a server is killed with kill -9; every folder ends equal to the server, nothing acknowledged lost")
    func clientsSurviveAServerKilledMidRun() async throws {
        try await Deployment.with { deployment in
            let (survivor, victim) = (deployment.servers[0], deployment.servers[1])
            // Round robin, really: answers come from both servers.
            let answeredBy = try await deployment.upstreamsAnswering(requests: 6)
            #expect(answeredBy == Set(deployment.servers.map { "127.0.0.1:\($0.port)" }), "answered by \(answeredBy)")

            let progress = DeploymentProgress(clients: Self.clients)
            let harnesses = try await deployment.clients(Self.clients)
            let acknowledged = try await withThrowingTaskGroup(of: [String: String]?.self) { group in
                for (index, harness) in harnesses.enumerated() {
                    group.addTask { try await Self.run(client: index, harness, progress: progress) }
                }
                group.addTask {
                    // Once every client has synced: kill -9 while the others sync on.
                    _ = try await waitUntil(timeout: 120) { progress.everyClientSynced }
                    victim.kill()
                    await victim.waitForExit()
                    #expect(victim.process.termination == .signalled(SIGKILL), "the server died of the kill")
                    progress.markKilled()
                    return nil
                }
                return try await group.reduce(into: [String: String]()) { all, own in all.merge(own ?? [:]) { $1 } }
            }
            #expect(progress.killed, "the server was killed mid-run")
            #expect(progress.syncsAfterKill.allSatisfy { $0 >= Self.rounds - Self.killBeforeRound },
                    "every client synced through the survivor after the kill: \(progress.syncsAfterKill)")

            // Everyone syncs once to send the last changes, once more to receive the others'.
            for _ in 0..<2 {
                for (index, harness) in harnesses.enumerated() { try await harness.sync("c\(index)") }
            }
            let server = try await harnesses[0].serverNotes()
            #expect(server == acknowledged, "the server lost or changed acknowledged notes: \(Self.difference(server, acknowledged))")
            for (index, harness) in harnesses.enumerated() {
                let folder = try harness.textTree("c\(index)")
                #expect(folder == server, "folder c\(index) differs from the server: \(Self.difference(folder, server))")
            }
            #expect(victim.log.contains("/v1/changes"), "the killed server had served syncs before it died")
            #expect(survivor.log.contains("/v1/batch"), "the survivor served syncs")
            #expect(deployment.balancer.errorLog.contains("127.0.0.1:\(victim.port)"), "nginx saw the dead server and moved on")
        }
    }

    /// One client's rounds: write a note of its own, edit or delete an earlier one, sync; then
    /// what its syncs acknowledged (its own notes by path, as last synced).
    static func run(client index: Int, _ harness: LiveServer, progress: DeploymentProgress) async throws -> [String: String] {
        let name = "c\(index)"
        var random = SeededRandom(seed: 16_000 + UInt64(index))
        var own: [String: String] = [:]
        for round in 0..<rounds {
            if round == killBeforeRound {
                #expect(try await waitUntil(timeout: 120) { progress.killed }, "the kill came")
            }
            let path = "\(name)/round\(round).md"
            let content = "# \(name) round \(round)\n\(random.next())\n"
            own[path] = content
            try harness.write(name, path, content)
            if let earlier = own.keys.filter({ $0 != path }).sorted().randomElement(using: &random), let text = own[earlier] {
                if Bool.random(using: &random) {
                    own[earlier] = text + "edited in round \(round)\n"
                    try harness.write(name, earlier, text + "edited in round \(round)\n")
                } else if round % 3 == 2 {
                    own[earlier] = nil
                    try harness.remove(name, earlier)
                }
            }
            try await harness.sync(name)
            progress.synced(client: index)
        }
        return own
    }

    /// The paths on which two trees differ, for a failure message.
    static func difference(_ got: [String: String], _ expected: [String: String]) -> String {
        Set(got.keys).union(expected.keys).filter { got[$0] != expected[$0] }.sorted()
            .map { "\($0): \(got[$0].map(\.debugDescription) ?? "missing") instead of \(expected[$0].map(\.debugDescription) ?? "nothing")" }
            .joined(separator: "; ")
    }
}

/// How far the clients are and whether the kill happened, shared by their tasks.
final class DeploymentProgress: Sendable {
    private struct State {
        var syncs: [Int]
        var killed = false
        var syncsAfterKill: [Int]
    }
    private let state: Mutex<State>

    init(clients: Int) {
        state = Mutex(State(syncs: Array(repeating: 0, count: clients), syncsAfterKill: Array(repeating: 0, count: clients)))
    }

    func synced(client: Int) {
        state.withLock {
            $0.syncs[client] += 1
            if $0.killed { $0.syncsAfterKill[client] += 1 }
        }
    }

    func markKilled() { state.withLock { $0.killed = true } }

    var everyClientSynced: Bool { state.withLock { $0.syncs.allSatisfy { $0 > 0 } } }
    var killed: Bool { state.withLock { $0.killed } }
    var syncsAfterKill: [Int] { state.withLock { $0.syncsAfterKill } }
}

/// Two servers on one fresh PostgreSQL database, nginx before them, a user, and a work folder
/// for the clients' folders; all of it stopped and removed afterwards.
final class Deployment {
    let servers: [TestServer]
    let balancer: NginxLoadBalancer
    let work: TemporaryDirectory
    /// The clients' HOMEs, removed at the end.
    private var homes: [TemporaryDirectory] = []

    private init(servers: [TestServer], balancer: NginxLoadBalancer, work: TemporaryDirectory) {
        self.servers = servers
        self.balancer = balancer
        self.work = work
    }

    static func with(_ body: (Deployment) async throws -> Void) async throws {
        let database = try await TestDatabase.make(on: .postgres)
        var servers: [TestServer] = []
        var balancer: NginxLoadBalancer?
        let work = try TemporaryDirectory("notes-deployment")
        var deployment: Deployment?
        do {
            for _ in 0..<2 {
                // Behind nginx, each request's address is the client's, from X-Forwarded-For.
                servers.append(try await TestServer(extraArguments: ["--trusted-proxy", "127.0.0.1/32"], database: database.location))
            }
            try await servers[0].addUser(TestAccount.username, password: TestAccount.password)
            balancer = try await NginxLoadBalancer(upstreams: servers.map(\.port))
            deployment = Deployment(servers: servers, balancer: balancer!, work: work)
            try await body(deployment!)
        } catch {
            await Self.tearDown(deployment, servers, balancer, work, database)
            throw error
        }
        await Self.tearDown(deployment, servers, balancer, work, database)
    }

    private static func tearDown(_ deployment: Deployment?, _ servers: [TestServer], _ balancer: NginxLoadBalancer?,
                                 _ work: TemporaryDirectory, _ database: TestDatabase) async {
        await balancer?.stop()
        for server in servers { await server.stop() }
        deployment?.homes.forEach { $0.remove() }
        work.remove()
        await database.drop()
    }

    /// `count` signed-in clients, each with its own HOME and an initialised folder `cN`, all
    /// through nginx.
    func clients(_ count: Int) async throws -> [LiveServer] {
        var harnesses: [LiveServer] = []
        for index in 0..<count {
            let home = try TemporaryDirectory("notes-home-c\(index)")
            homes.append(home)
            let harness = LiveServer(server: servers[0], home: home, work: work, via: balancer.baseURL)
            try await harness.login()
            try await harness.initFolder("c\(index)")
            harnesses.append(harness)
        }
        return harnesses
    }

    /// Which servers answered `requests` health checks sent through nginx.
    func upstreamsAnswering(requests: Int) async throws -> Set<String> {
        let client = TestAPIClient(baseURL: balancer.baseURL)
        var answered: Set<String> = []
        for _ in 0..<requests {
            let response = try await client.send("GET", "/healthz")
            #expect(response.status == 200)
            if let upstream = response.header(NginxLoadBalancer.upstreamHeader) { answered.insert(upstream) }
        }
        return answered
    }
}
