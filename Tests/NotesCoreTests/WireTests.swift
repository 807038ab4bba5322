import Foundation
import Testing
@testable import NotesCore

@Suite("Wire format")
struct WireTests {
    @Test("timestamps are RFC 3339 UTC with milliseconds")
    func formatsTimestamps() {
        #expect(WireTime.string(fromMilliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(WireTime.string(fromMilliseconds: 1_795_973_400_123) == "2026-11-29T17:30:00.123Z")
        #expect(WireTime.string(fromMilliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(WireTime.string(fromMilliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test("timestamps agree with Foundation's Gregorian calendar over four centuries")
    func timestampsMatchCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let ms = Int64.random(in: -2_208_988_800_000...10_413_792_000_000, using: &generator)  // 1900...2300
            let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                                from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year!, parts.month!, parts.day!,
                                  parts.hour!, parts.minute!, parts.second!, Int(ms - seconds * 1000))
            #expect(WireTime.string(fromMilliseconds: ms) == expected)
        }
    }

    @Test("notes encode with snake_case keys and round-trip byte-exact content")
    func noteRoundTrip() throws {
        let note = NoteResource(id: NoteID(), path: "a/b.md", content: "line\r\nnext\u{0}", hash: "h", rev: 7, size: 10,
                                createdAt: "c", updatedAt: "u", deleted: false)
        let data = try WireJSON.encoder().encode(note)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"created_at\""))
        #expect(text.contains("\"a/b.md\""))
        #expect(try WireJSON.decoder().decode(NoteResource.self, from: data) == note)
    }

    @Test("a batch operation with a bad id or wrong types is rejected")
    func batchDecodingIsStrict() {
        let decoder = WireJSON.decoder()
        #expect(throws: DecodingError.self) {
            try decoder.decode(BatchRequest.self, from: Data(#"{"operations":[{"op":"put","id":"nope"}]}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try decoder.decode(BatchRequest.self, from: Data(#"{"operations":[{"op":"put","id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","if_match":"x"}]}"#.utf8))
        }
    }
}
