import Testing
import Transports

/// Known encodings and edge cases of each framer.
@Suite struct FramerVectorTests {
    // MARK: - Line

    @Test func lineDelimiterAndTerminatorAreSeparate() throws {
        var f = LineFramer(delimiter: Array("\r\n".utf8), terminator: Array("\r".utf8))
        #expect(try f.encode(Array("AT+CSQ".utf8)) == Array("AT+CSQ\r".utf8))
        #expect(
            f.ingest(Array("\r\n+CSQ: 20,99\r\n\r\nOK\r\n".utf8)) == [
                .frame([]), .frame(Array("+CSQ: 20,99".utf8)), .frame([]), .frame(Array("OK".utf8)),
            ]
        )
        var quiet = LineFramer(dropsEmptyLines: true)
        #expect(quiet.ingest(Array("\r\nOK\r\n".utf8)) == [.frame(Array("OK".utf8))])
    }

    @Test func lineWithLoneCarriageReturnsAndSplitDelimiters() {
        var f = LineFramer(delimiter: Array("\r\n".utf8), terminator: Array("\r\n".utf8))
        #expect(f.ingest(Array("a\rb\r".utf8)).isEmpty)
        #expect(f.ingest(Array("\r".utf8)).isEmpty)
        #expect(f.ingest(Array("\n".utf8)) == [.frame(Array("a\rb\r".utf8))])
    }

    @Test func lineTooLongIsReportedOnceAndSkippedToItsEnd() {
        var f = LineFramer(delimiter: Array("\n".utf8), terminator: Array("\n".utf8), maxFrameSize: 8)
        #expect(f.ingest(Array("12345678\n".utf8)) == [.frame(Array("12345678".utf8))], "exactly the limit is fine")
        #expect(f.ingest(Array("123456789".utf8)) == [.dropped(.frameTooLarge(limit: 8, size: nil))])
        #expect(f.ingest(Array("more and more".utf8)).isEmpty)
        #expect(f.ingest(Array("\nok\n".utf8)) == [.frame(Array("ok".utf8))])
    }

    @Test func resetForgetsAPartialLine() {
        var f = LineFramer()
        _ = f.ingest(Array("partial".utf8))
        f.reset()
        #expect(f.ingest(Array("OK\r\n".utf8)) == [.frame(Array("OK".utf8))])
    }

    // MARK: - SLIP

    @Test func slipEscapesEndAndEsc() throws {
        let f = SLIPFramer()
        #expect(try f.encode([0xC0, 0xDB, 0x01]) == [0xC0, 0xDB, 0xDC, 0xDB, 0xDD, 0x01, 0xC0])
        #expect(try SLIPFramer(leadingEnd: false).encode([0x41]) == [0x41, 0xC0])
        var d = SLIPFramer()
        #expect(d.ingest([0xC0, 0xC0, 0xDB, 0xDC, 0xDB, 0xDD, 0xC0, 0xC0]) == [.frame([0xC0, 0xDB])])
    }

    @Test func slipBadEscapesAreDroppedUntilTheNextEnd() {
        var d = SLIPFramer()
        #expect(
            d.ingest([0x41, 0xDB, 0x42, 0x43, 0xC0, 0x44, 0xC0]) == [
                .dropped(.invalidEncoding("ESC followed by 0x42")), .frame([0x44]),
            ]
        )
        #expect(
            d.ingest([0x41, 0xDB, 0xC0, 0x45, 0xC0]) == [
                .dropped(.invalidEncoding("ESC followed by END")), .frame([0x45]),
            ]
        )
    }

    @Test func slipEscapeSplitAcrossChunks() {
        var d = SLIPFramer()
        #expect(d.ingest([0xC0, 0x01, 0xDB]).isEmpty)
        #expect(d.ingest([0xDC]).isEmpty)
        #expect(d.ingest([0xC0]) == [.frame([0x01, 0xC0])])
    }

    // MARK: - COBS (the examples of the COBS paper and Wikipedia)

    static let cobsVectors: [([UInt8], [UInt8])] = [
        ([0x00], [0x01, 0x01, 0x00]),
        ([0x00, 0x00], [0x01, 0x01, 0x01, 0x00]),
        ([0x00, 0x11, 0x00], [0x01, 0x02, 0x11, 0x01, 0x00]),
        ([0x11, 0x22, 0x00, 0x33], [0x03, 0x11, 0x22, 0x02, 0x33, 0x00]),
        ([0x11, 0x22, 0x33, 0x44], [0x05, 0x11, 0x22, 0x33, 0x44, 0x00]),
        ([0x11, 0x00, 0x00, 0x00], [0x02, 0x11, 0x01, 0x01, 0x01, 0x00]),
        (Array(1...254), [0xFF] + Array(1...254) + [0x00]),
        (Array(0...254), [0x01, 0xFF] + Array(1...254) + [0x00]),
        (Array(1...255), [0xFF] + Array(1...254) + [0x02, 0xFF, 0x00]),
        (Array(2...255) + [0x00], [0xFF] + Array(2...255) + [0x01, 0x01, 0x00]),
        (Array(3...255) + [0x00, 0x01], [0xFE] + Array(3...255) + [0x02, 0x01, 0x00]),
        ([], [0x01, 0x00]),
    ]

    @Test(arguments: cobsVectors)
    func cobsKnownEncodings(_ payload: [UInt8], _ encoded: [UInt8]) throws {
        #expect(try COBSFramer().encode(payload) == encoded)
        var d = COBSFramer()
        #expect(d.ingest(encoded) == [.frame(payload)])
    }

    @Test func cobsBadCodesAreDroppedAndEmptyBlocksIgnored() throws {
        var d = COBSFramer()
        #expect(
            d.ingest([0x00, 0x00, 0x05, 0x11, 0x00, 0x02, 0x22, 0x00]) == [
                .dropped(.invalidEncoding("a code byte runs past the end of the frame")), .frame([0x22]),
            ]
        )
        #expect(try COBSFramer(leadingDelimiter: true).encode([0x11]) == [0x00, 0x02, 0x11, 0x00])
    }

    @Test func cobsDecodedSizeIsCheckedToo() {
        // With a 254-byte limit a 256-byte block fits the encoded bound but decodes to 255 bytes.
        var d = COBSFramer(maxFrameSize: 254)
        #expect(d.maxEncodedSize == 256)
        #expect(
            d.ingest([UInt8](repeating: 0x01, count: 256) + [0x00]) == [.dropped(.frameTooLarge(limit: 254, size: nil))]
        )
        #expect(d.ingest([UInt8](repeating: 0x01, count: 255) + [0x00]) == [.frame([UInt8](repeating: 0, count: 254))])
        #expect(
            d.ingest([UInt8](repeating: 0x01, count: 257) + [0x00]) == [.dropped(.frameTooLarge(limit: 254, size: nil))]
        )
    }

    // MARK: - Length-prefixed

    @Test func lengthPrefixesInBothByteOrders() throws {
        let p = [UInt8](repeating: 0xAA, count: 258)
        #expect(
            try LengthPrefixedFramer(prefixSize: 2, endianness: .big, maxFrameSize: 1000).encode(p).prefix(2) == [1, 2]
        )
        #expect(
            try LengthPrefixedFramer(prefixSize: 2, endianness: .little, maxFrameSize: 1000).encode(p).prefix(2) == [
                2, 1,
            ]
        )
        #expect(
            try LengthPrefixedFramer(prefixSize: 4, endianness: .big, maxFrameSize: 1000).encode(p).prefix(4) == [
                0, 0, 1, 2,
            ]
        )
        #expect(
            try LengthPrefixedFramer(prefixSize: 4, endianness: .little, maxFrameSize: 1000).encode(p).prefix(4)
                == [2, 1, 0, 0]
        )
        #expect(try LengthPrefixedFramer(prefixSize: 1).encode([7]) == [1, 7])
        #expect(throws: FramingError.payloadTooLarge(limit: 255, size: 256)) {
            _ = try LengthPrefixedFramer(prefixSize: 1, maxFrameSize: 4096).encode([UInt8](repeating: 0, count: 256))
        }
        var d = LengthPrefixedFramer(prefixSize: 2, endianness: .little)
        #expect(d.ingest([0, 0, 3, 0, 9, 8, 7]) == [.frame([]), .frame([9, 8, 7])])
    }

    @Test func aTwoGibibyteClaimIsRejectedAtOnce() {
        var d = LengthPrefixedFramer(prefixSize: 4, endianness: .big, maxFrameSize: 4096)
        #expect(d.ingest([0x80, 0x00, 0x00]).isEmpty)
        #expect(d.ingest([0x00]) == [.dropped(.frameTooLarge(limit: 4096, size: 2_147_483_648))])
        // The claimed bytes are skipped as they come, never stored.
        for _ in 0..<16 { #expect(d.ingest([UInt8](repeating: 1, count: 64 * 1024)).isEmpty) }
        var le = LengthPrefixedFramer(prefixSize: 4, endianness: .little, maxFrameSize: 4096)
        #expect(le.ingest([0xFF, 0xFF, 0xFF, 0xFF]) == [.dropped(.frameTooLarge(limit: 4096, size: 4_294_967_295))])
    }

    @Test func anOversizeFrameIsSkippedExactly() {
        var d = LengthPrefixedFramer(prefixSize: 1, maxFrameSize: 4)
        #expect(
            d.ingest([6, 1, 2, 3, 4, 5, 6, 2, 0xAB, 0xCD]) == [
                .dropped(.frameTooLarge(limit: 4, size: 6)), .frame([0xAB, 0xCD]),
            ]
        )
    }

    // MARK: - Errors read well

    @Test func framingErrorsArePersonReadable() {
        #expect(
            FramingError.frameTooLarge(limit: 4096, size: 2_147_483_648).description
                == "a 2147483648-byte frame exceeds the 4096-byte limit and was skipped"
        )
        #expect(FramingError.truncated(expected: 10, received: 3).description.contains("3 of 10 bytes"))
    }
}
