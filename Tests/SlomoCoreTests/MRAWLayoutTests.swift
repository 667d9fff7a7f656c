import Testing

@testable import SlomoCore

/// Photron's `.cihx` as `MRAWLayout` writes it: the fields pyMRAW parses, the numbering from the
/// trigger, the colour filter, the date of the first frame.
@Suite struct MRAWLayoutTests {
    @Test func cihxHoldsTheFieldsReadersParse() {
        let l = MRAWLayout(
            width: 96, height: 64, bitsPerSample: 16, effectiveBits: 12, mosaic: "rggb", totalFrames: 11, startFrame: -3,
            frameRate: Rational(250), date: Rational(1_795_834_718), deviceName: "slomo a<b", comment: "x & y")
        let x = l.cihx
        for field in [
            "<recordRate>250</recordRate>", "<shutterSpeed>250</shutterSpeed>", "<totalFrame>11</totalFrame>", "<startFrame>-3</startFrame>",
            "<correctTriggerFrame>0</correctTriggerFrame>", "<width>96</width><height>64</height>", "<type>Raw</type><bit>16</bit>",
            "<bayerPattern>RGGB</bayerPattern>", "<depth>12</depth><side>Lower</side>", "<fileFormat>MRaw</fileFormat>",
            "<date>2026/11/28</date><time>02:58:38</time>", "<deviceName>slomo a&lt;b</deviceName>", "<comment>x &amp; y</comment>",
        ] {
            #expect(x.contains(field), "\(field)")
        }
        #expect(l.frameBytes == 96 * 64 * 2)
        #expect(MRAWLayout.civil(Rational(-1)) == ("1969/12/31", "23:59:59"))
        #expect(MRAWLayout.civil(Rational(951_782_400)) == ("2000/02/29", "00:00:00"))
        #expect(LabOutput.cihxPath("d/take.MRAW") == "d/take.cihx")
    }
}

/// Reading a `.cihx` back (``MRAWLayout/init(cihx:)``): what slomo writes, a camera's file with
/// bytes before its XML, and what slomo refuses.
@Suite struct MRAWHeaderTests {
    @Test func whatSlomoWritesReadsBackEqual() throws {
        let l = MRAWLayout(
            width: 96, height: 64, bitsPerSample: 16, effectiveBits: 12, mosaic: "GBRG", totalFrames: 11, startFrame: -3,
            frameRate: Rational(2997, 100), date: Rational(1_795_834_718), deviceName: "slomo a<b & c", comment: "x & y")
        #expect(try MRAWLayout(cihx: "\u{1}\u{2}" + l.cihx) == l)
        var gray = l
        gray.mosaic = nil
        gray.bitsPerSample = 8
        gray.effectiveBits = 8
        #expect(try MRAWLayout(cihx: gray.cihx) == gray)
        for t: Int64 in [-1, 0, 951_782_400, 1_795_834_718, 4_102_444_800] {
            let c = MRAWLayout.civil(Rational(t))
            #expect(MRAWLayout.utc(date: c.date, time: c.time) == Rational(t), "\(c)")
        }
    }

    @Test func refusalsNameWhatWouldWork() {
        let l = MRAWLayout(
            width: 8, height: 8, bitsPerSample: 8, effectiveBits: 8, mosaic: nil, totalFrames: 1, startFrame: 0, frameRate: Rational(100),
            date: nil, deviceName: "", comment: "")
        func failure(_ text: String) -> String {
            do { _ = try MRAWLayout(cihx: text) } catch { return error.description }
            return "read"
        }
        #expect(failure("<xml/>").contains("no <cih> header"))
        #expect(failure(l.cihx.replacing("<bit>8</bit>", with: "<bit>12</bit>")).contains("8- and 16-bit"))
        #expect(failure(l.cihx.replacing("<type>Mono</type>", with: "<type>Color</type>")).contains("Mono and Raw"))
        #expect(failure(l.cihx.replacing("<width>8</width>", with: "<width>x</width>")).contains("imageDataInfo/resolution/width is 'x'"))
        #expect(failure(l.cihx.replacing("<fileFormat>MRaw</fileFormat>", with: "<fileFormat>TIFF</fileFormat>")).contains("slomo reads MRaw"))
    }
}
