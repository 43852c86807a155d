import NIOCore

/// Holds every outbound write for a fixed time, then sends it, in order: one way of a simulated
/// round trip, for benchmarks and fault tests. Bandwidth is left alone and nothing is copied
/// (a proxy in user space would add its own copies and CPU to what is measured).
final class SimulatedLatency: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private let delay: TimeAmount
    private var queue: [(due: NIODeadline, data: NIOAny, promise: EventLoopPromise<Void>?)] = []
    private var head = 0
    private var flushes: [NIODeadline] = []
    private var armed = false

    init(delay: TimeAmount) { self.delay = delay }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        queue.append((.now() + delay, data, promise))
        arm(context)
    }

    func flush(context: ChannelHandlerContext) {
        flushes.append(.now() + delay)
        arm(context)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard !armed, let due = [head < queue.count ? queue[head].due : nil, flushes.first].compactMap({ $0 }).min() else { return }
        armed = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(deadline: due) {
            let (handler, context) = bound.value
            handler.armed = false
            handler.release(context)
        }
    }

    private func release(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        while head < queue.count, queue[head].due <= now {
            context.write(queue[head].data, promise: queue[head].promise)
            head += 1
        }
        var flush = false
        while let first = flushes.first, first <= now {
            flushes.removeFirst()
            flush = true
        }
        if flush { context.flush() }
        if head > 1024 {
            queue.removeFirst(head)
            head = 0
        }
        arm(context)
    }
}
