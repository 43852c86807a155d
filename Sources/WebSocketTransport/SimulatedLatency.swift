import NIOCore

/// Delivers everything this side receives a fixed time late, in order: one way of a simulated
/// round trip, for benchmarks and fault tests. Bandwidth is left alone and nothing is copied
/// (a proxy in user space would add its own copies and CPU to what is measured).
///
/// The delay sits on the receiving side, as a link's would: what the peer sends enters its
/// socket at once, so TCP backpressure works as on a real network. (Held before the socket, the
/// data in flight would not count toward the sender's writability, and a sender blocked on a
/// full socket could not refill the delay line: the delay would be paid twice.) What is held is
/// bounded by what the peer may send in one delay, e.g. a transfer's window.
final class SimulatedLatency: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    private enum Event {
        case read(NIOAny)
        case readComplete
        case inactive
        case error(any Error)
    }

    private let delay: TimeAmount
    private var queue: [(due: NIODeadline, event: Event)] = []
    private var head = 0
    private var armed = false

    init(delay: TimeAmount) { self.delay = delay }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { hold(.read(data), context) }
    func channelReadComplete(context: ChannelHandlerContext) { hold(.readComplete, context) }
    func channelInactive(context: ChannelHandlerContext) { hold(.inactive, context) }
    func errorCaught(context: ChannelHandlerContext, error: any Error) { hold(.error(error), context) }

    private func hold(_ event: Event, _ context: ChannelHandlerContext) {
        queue.append((.now() + delay, event))
        arm(context)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard !armed, head < queue.count else { return }
        armed = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(deadline: queue[head].due) {
            let (handler, context) = bound.value
            handler.armed = false
            handler.release(context)
        }
    }

    private func release(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        while head < queue.count, queue[head].due <= now {
            let event = queue[head].event
            // Delivered: drop the buffer now, not at the next compaction (1024 held reads of
            // up to 64 KiB each made a benchmarked receiver's peak RSS hundreds of MiB).
            queue[head].event = .readComplete
            head += 1
            switch event {
            case .read(let data): context.fireChannelRead(data)
            case .readComplete: context.fireChannelReadComplete()
            case .inactive: context.fireChannelInactive()
            case .error(let error): context.fireErrorCaught(error)
            }
        }
        if head > 1024 {
            queue.removeFirst(head)
            head = 0
        }
        arm(context)
    }
}
