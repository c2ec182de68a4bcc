repot
