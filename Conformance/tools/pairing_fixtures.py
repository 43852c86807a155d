"""Values shared by the pairing vector generators: one clock, one phone, one desktop."""
T0 = 1747300000000
PHONE = "did:cc:phone-1"
DESK = "desktop-4f9c2a"
RELAY = "wss://signaling.chainlesschain.com"
LAN = "ws://192.168.1.20:9001"
UUID = "0b0c5f2e-8d1a-4c55-9a4e-0d7b6f1e2a33"
MOBILE = {"deviceId": UUID, "name": "Li's iPhone", "platform": "ios"}
