import Testing
@testable import SlomoCore

@Suite struct CalibrationCodeTests {
    /// Paints a full calibration picture into owned planes.
    func picture(index: Int, width: Int, height: Int) -> [UInt8] {
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 0, count: ((width + 1) / 2) * ((height + 1) / 2))
        var v = u
        y.withUnsafeMutableBufferPointer { yp in
            u.withUnsafeMutableBufferPointer { up in
                v.withUnsafeMutableBufferPointer { vp in
                    CalibrationPicture.paint(
                        index: index, fps: Rational(240), y: yp.baseAddress!, yStride: width,
                        u: up.baseAddress!, v: vp.baseAddress!, chromaStride: (width + 1) / 2,
                        width: width, height: height)
                }
            }
        }
        return y
    }

    func read(_ y: [UInt8], width: Int, height: Int) -> Int? {
        y.withUnsafeBufferPointer { CalibrationCode.read(luma: $0.baseAddress!, width: width, height: height, stride: width) }
    }

    @Test(arguments: [0, 1, 7, 479, 65_535, 1_000_000, CalibrationCode.maxIndex])
    func roundTripsThroughPixels(index: Int) {
        let y = picture(index: index, width: 640, height: 360)
        #expect(read(y, width: 640, height: 360) == index)
    }

    @Test func survivesDownscalingAndNoise() {
        let (w, h) = (1280, 720)
        let y = picture(index: 12345, width: w, height: h)
        // nearest-neighbour down-scale to 320x180 plus deterministic ±30 noise
        let (w2, h2) = (320, 180)
        var seed: UInt64 = 42
        var small = [UInt8](repeating: 0, count: w2 * h2)
        for yy in 0..<h2 {
            for xx in 0..<w2 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let noise = Int(seed >> 59) * 4 - 30
                let v = Int(y[(yy * h / h2) * w + xx * w / w2]) + noise
                small[yy * w2 + xx] = UInt8(max(0, min(255, v)))
            }
        }
        #expect(read(small, width: w2, height: h2) == 12345)
    }

    @Test func blendedOrForeignFramesReadAsNil() {
        let a = picture(index: 10, width: 640, height: 360), b = picture(index: 11, width: 640, height: 360)
        let blend = zip(a, b).map { UInt8((Int($0) + Int($1)) / 2) }
        #expect(read(blend, width: 640, height: 360) == nil)  // ambiguous grey cells
        #expect(read([UInt8](repeating: 128, count: 640 * 360), width: 640, height: 360) == nil)
        #expect(read([UInt8](repeating: 16, count: 640 * 360), width: 640, height: 360) == nil)  // black: guards fail
    }

    @Test func corruptedBitFailsTheCRC() {
        var cells = CalibrationCode.cells(for: 4242).map { $0 ? 235 : 16 }
        #expect(CalibrationCode.decode(cellMeans: cells) == 4242)
        cells[10] = cells[10] == 235 ? 16 : 235
        #expect(CalibrationCode.decode(cellMeans: cells) == nil)
    }

    @Test func toneHasClicksAtExactQuarterSeconds() {
        let tone = CalibrationTone(sampleRate: 48_000)
        #expect(tone.clickTimes(duration: Rational(1)) == [0, 1, 2, 3].map { Rational($0, 4) })
        // a click sample is far louder than the tone's 0.25 peak
        let clickPeak = (0..<96).map { abs(tone.sample(12_000 + Int64($0))) }.max()!
        let tonePeak = (200..<1000).map { abs(tone.sample(12_000 + Int64($0))) }.max()!
        #expect(clickPeak > 0.5 && tonePeak <= 0.2501 && tonePeak > 0.24)
    }

    @Test func sineWithoutFoundationIsAccurate() {
        for i in 0..<1000 {
            let x = Double(i) / 997.0
            let reference = (i == 0) ? 0.0 : Double.sinTwoPi(x)
            // sin²+cos² = 1 and known values
            let c = Double.sinTwoPi(x + 0.25)
            #expect(abs(reference * reference + c * c - 1) < 1e-12)
        }
        #expect(abs(Double.sinTwoPi(0.25) - 1) < 1e-15)
        #expect(abs(Double.sinTwoPi(1.0 / 12) - 0.5) < 1e-14)
    }
}
