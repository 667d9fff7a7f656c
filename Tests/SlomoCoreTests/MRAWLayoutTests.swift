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
