// Child of bareIpcRoundTripUs: echoes every IPC message back as a call result.
process.on('message', (message: { seq: number; argsJson: string }) => {
  process.send?.({ type: 'call-result', seq: message.seq, outcome: { ok: true, valueJson: message.argsJson } });
});
process.on('disconnect', () => process.exit(0));
