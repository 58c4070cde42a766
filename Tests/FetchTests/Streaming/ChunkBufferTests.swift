import FetchTesting
import Foundation
import Testing

@testable import Fetch

@Suite struct ChunkBufferTests {
    final class Controls: Sendable {
        let pauses = Locked(0)
        let resumes = Locked(0)
        let cancels = Locked(0)

        var control: ChunkBuffer.Control {
            ChunkBuffer.Control(
                pause: { self.pauses.withLock { $0 += 1 } },
                resume: { self.resumes.withLock { $0 += 1 } },
                cancel: { self.cancels.withLock { $0 += 1 } }
            )
        }
    }

    static func chunk(_ index: Int, size: Int = 1000) -> Data {
        Data(repeating: UInt8(index % 256), count: size)
    }

    @Test func suspendsTheTaskPastTheLimitAndResumesItAtHalf() async throws {
        let controls = Controls()
        let buffer = ChunkBuffer(limit: 10_000, backpressure: .suspendTask, control: controls.control)
        for index in 0..<10 {
            buffer.receive(Self.chunk(index))
        }
        #expect(controls.pauses.withLock { $0 } == 0)
        buffer.receive(Self.chunk(10))
        #expect(controls.pauses.withLock { $0 } == 1)
        // Down to 6,000 bytes: still suspended; at 5,000, resumed.
        for index in 0..<5 {
            #expect(try await buffer.next() == Self.chunk(index))
        }
        #expect(controls.resumes.withLock { $0 } == 0)
        #expect(try await buffer.next() == Self.chunk(5))
        #expect(controls.resumes.withLock { $0 } == 1)
        buffer.finish()
        for index in 6..<11 {
            #expect(try await buffer.next() == Self.chunk(index))
        }
        #expect(try await buffer.next() == nil)
        #expect(buffer.peakMemoryBytes == 11_000)
    }

    @Test func spillsToDiskPastTheLimitAndHandsEverythingOnInOrder() async throws {
        let controls = Controls()
        let buffer = ChunkBuffer(limit: 10_000, backpressure: .spillToDisk, control: controls.control)
        for index in 0..<200 {
            buffer.receive(Self.chunk(index))
        }
        buffer.finish()
        var received = Data()
        while let chunk = try await buffer.next() {
            received.append(chunk)
        }
        #expect(received == (0..<200).reduce(into: Data()) { $0.append(Self.chunk($1)) })
        #expect(buffer.peakMemoryBytes <= 10_000)
        #expect(controls.pauses.withLock { $0 } == 0)
    }

    @Test func aChunkGoesStraightToAWaitingConsumer() async throws {
        let buffer = ChunkBuffer(limit: 10, control: Controls().control)
        async let first = buffer.next()
        try await Task.sleep(for: .milliseconds(50))
        buffer.receive(Data("hello".utf8))
        #expect(try await first == Data("hello".utf8))
    }

    @Test func anErrorArrivesAfterTheBufferedChunks() async throws {
        let buffer = ChunkBuffer(limit: 100, control: Controls().control)
        buffer.receive(Data("a".utf8))
        buffer.finish(throwing: FetchError.timedOut())
        #expect(try await buffer.next() == Data("a".utf8))
        await #expect(throws: FetchError.self) { try await buffer.next() }
        #expect(try await buffer.next() == nil)
    }

    @Test func cancellingTheWaitingTaskCancelsTheTransfer() async throws {
        let controls = Controls()
        let buffer = ChunkBuffer(limit: 100, control: controls.control)
        let reader = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        let result = await reader.result
        #expect(throws: FetchError.self) { try result.get() }
        #expect(controls.cancels.withLock { $0 } == 1)
        // Chunks that arrive later are dropped.
        buffer.receive(Data("late".utf8))
        #expect(try await buffer.next() == nil)
    }

    /// A clock the test moves by hand, in nanoseconds.
    final class ManualClock: Sendable {
        let nanoseconds = Locked<UInt64>(1_000_000_000)

        func advance(milliseconds: UInt64) {
            nanoseconds.withLock { $0 += milliseconds * 1_000_000 }
        }

        var now: @Sendable () -> UInt64 {
            { self.nanoseconds.withLock { $0 } }
        }
    }

    /// Delayed work the test runs by hand: the late wakes of a gathering consumer.
    final class ManualScheduler: Sendable {
        let pending = Locked<[@Sendable () -> Void]>([])

        var schedule: ChunkBuffer.Scheduler {
            { _, work in self.pending.withLock { $0.append(work) } }
        }

        /// Runs the work scheduled so far; returns how much there was.
        @discardableResult
        func runPending() -> Int {
            let work = pending.withLock { pending in
                defer { pending = [] }
                return pending
            }
            for item in work {
                item()
            }
            return work.count
        }
    }

    @Test func aBurstThatStopsShortOfWhatTheConsumerGathersWakesItLater() throws {
        let clock = ManualClock()
        let scheduler = ManualScheduler()
        let buffer = ChunkBuffer(
            limit: 1_000_000, control: Controls().control, now: clock.now, schedule: scheduler.schedule)
        let wakes = Locked(0)
        let wake: @Sendable () -> Void = { wakes.withLock { $0 += 1 } }
        #expect(try buffer.poll(gathering: 100_000, orWake: wake) == nil)
        buffer.receive(Self.chunk(0))
        buffer.receive(Self.chunk(1))
        // The server stalls: no chunk comes to wake the consumer, the late wake does, once.
        #expect(wakes.withLock { $0 } == 0)
        #expect(scheduler.runPending() == 1)
        #expect(wakes.withLock { $0 } == 1)
        #expect(try buffer.poll(gathering: 100_000, orWake: wake) == Self.chunk(0))
        #expect(try buffer.poll(gathering: 100_000, orWake: wake) == Self.chunk(1))
        // A late wake with nothing held back wakes no one.
        #expect(try buffer.poll(gathering: 100_000, orWake: wake) == nil)
        #expect(scheduler.runPending() == 0)
        buffer.receive(Self.chunk(2))
        #expect(scheduler.runPending() == 1)
        #expect(wakes.withLock { $0 } == 2)
    }

    @Test func aGatheringConsumerIsWokenOnceForABurstNotForEveryChunk() throws {
        let clock = ManualClock()
        let buffer = ChunkBuffer(
            limit: 1_000_000, control: Controls().control, now: clock.now, schedule: ManualScheduler().schedule)
        let wakes = Locked(0)
        #expect(try buffer.poll(gathering: 4_000, orWake: { wakes.withLock { $0 += 1 } }) == nil)
        for index in 0..<3 {
            buffer.receive(Self.chunk(index))
        }
        #expect(wakes.withLock { $0 } == 0)
        buffer.receive(Self.chunk(3))
        #expect(wakes.withLock { $0 } == 1)
        for index in 0..<4 {
            #expect(try buffer.poll(orWake: {}) == Self.chunk(index))
        }
    }

    @Test func aGatheringConsumerIsWokenAtOnceForASlowChunkAndAtTheEnd() throws {
        let clock = ManualClock()
        let buffer = ChunkBuffer(
            limit: 1_000_000, control: Controls().control, now: clock.now, schedule: ManualScheduler().schedule)
        let wakes = Locked(0)
        let wake: @Sendable () -> Void = { wakes.withLock { $0 += 1 } }
        #expect(try buffer.poll(gathering: 100_000, orWake: wake) == nil)
        clock.advance(milliseconds: 2)
        buffer.receive(Self.chunk(0))
        #expect(wakes.withLock { $0 } == 1)
        #expect(try buffer.poll(gathering: 100_000, orWake: wake) == Self.chunk(0))
        #expect(try buffer.poll(gathering: 100_000, orWake: wake) == nil)
        buffer.receive(Self.chunk(1))
        #expect(wakes.withLock { $0 } == 1)
        buffer.finish()
        #expect(wakes.withLock { $0 } == 2)
        #expect(try buffer.poll(orWake: wake) == Self.chunk(1))
        #expect(try buffer.poll(orWake: wake) == .some(nil))
    }

    @Test func aGatheringConsumerIsWokenBeforeTheTransferIsSuspended() throws {
        let clock = ManualClock()
        let controls = Controls()
        let buffer = ChunkBuffer(
            limit: 3_000, backpressure: .suspendTask, control: controls.control, now: clock.now,
            schedule: ManualScheduler().schedule)
        let wakes = Locked(0)
        #expect(try buffer.poll(gathering: 1_000_000, orWake: { wakes.withLock { $0 += 1 } }) == nil)
        for index in 0..<3 {
            buffer.receive(Self.chunk(index))
        }
        #expect(wakes.withLock { $0 } == 1)
        #expect(controls.pauses.withLock { $0 } == 0)
    }
}
