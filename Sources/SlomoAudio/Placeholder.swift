import SlomoCore
